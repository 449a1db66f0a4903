import CSDBus
import Foundation
import Glibc
import MediaModel
import Synchronization

/// A connection to the user's session bus, served on a thread of its own:
/// sd-bus is not thread-safe, so every call on the connection happens on
/// that thread. Other threads hand it work with `perform`, which wakes it
/// through an eventfd. Idle, the thread sleeps in poll(2): no CPU.
final class SessionBus: @unchecked Sendable {
    let bus: OpaquePointer
    private let wake: Int32
    private let work = Mutex<[@Sendable (SessionBus) -> Void]>([])
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?
    /// Signalled when the thread has ended (stopped, or the bus lost).
    private let ended = DispatchSemaphore(value: 0)
    /// Run on the bus thread as it ends (the objects' slots let go).
    private let last = Mutex<(@Sendable (SessionBus) -> Void)?>(nil)

    /// Called once if the connection is lost (the bus restarted, the user
    /// logged out): the thread has ended, and with it MPRIS.
    private let onLost: @Sendable (String) -> Void

    /// Connects; throws the reason when there is no session bus.
    init(onLost: @escaping @Sendable (String) -> Void) throws(SessionBusError) {
        self.onLost = onLost
        var connection: OpaquePointer?
        let result = sd_bus_open_user(&connection)
        guard result >= 0, let connection else { throw SessionBusError(code: result, doing: "connect to the session bus") }
        bus = connection
        wake = mp_wake_descriptor()
    }

    deinit {
        sd_bus_flush_close_unref(bus)
        close(wake)
    }

    /// Owns `name`, or fails with -EEXIST when another connection owns it.
    func requestName(_ name: String) -> Int32 {
        sd_bus_request_name(bus, name, 0)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "mediaplay.mpris"
        self.thread = thread
        thread.start()
    }

    /// Runs `body` on the bus thread, soon (never, once the bus is gone).
    func perform(_ body: @escaping @Sendable (SessionBus) -> Void) {
        guard !stopping.load(ordering: .acquiring) else { return }
        work.withLock { $0.append(body) }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Ends the thread after `finally` runs on it, and waits for that.
    func stop(finally: @escaping @Sendable (SessionBus) -> Void = { _ in }) {
        guard thread != nil else { return }
        last.withLock { $0 = finally }
        stopping.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        ended.wait()
        ended.signal()  // a second stop returns at once
    }


    private func run() {
        defer {
            stopping.store(true, ordering: .releasing)
            work.withLock { $0.removeAll() }
            last.withLock { $0 }?(self)
            sd_bus_flush(bus)
            ended.signal()
        }
        while !stopping.load(ordering: .acquiring) {
            guard processAll() else { return }
            for body in work.withLock({ pending in defer { pending.removeAll() }; return pending }) { body(self) }
            // What the work queued (signals) goes out with the next process.
            let more = sd_bus_process(bus, nil)
            if more < 0 { return lost(more) }
            if more > 0 { continue }
            var descriptors = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            // sd-bus's own deadline (a method call's reply, on the real
            // CLOCK_MONOTONIC in microseconds), or none.
            var deadline: UInt64 = 0
            sd_bus_get_timeout(bus, &deadline)
            let timeout = deadline == UInt64.max ? -1 : SystemClock.pollTimeout(untilMonotonicMicroseconds: deadline)
            if poll(&descriptors, 2, timeout) < 0 && errno != EINTR { return }
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
        }
    }
}

extension SessionBus {
    /// Processes what the connection has; false when it is lost.
    private func processAll() -> Bool {
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 {
                lost(result)
                return false
            }
            if result == 0 { return true }
        }
    }

    private func lost(_ code: Int32) {
        onLost(SessionBusError(code: code, doing: "stay on the session bus").description)
    }
}

struct SessionBusError: Error, CustomStringConvertible {
    let code: Int32
    let doing: String
    var description: String { "cannot \(doing): \(String(cString: strerror(-code)))" }
}

/// Writes D-Bus values into a message (a reply, a signal) from Swift: sd-bus's
/// non-variadic calls, one value at a time.
struct MessageWriter {
    let message: OpaquePointer

    func string(_ value: String) {
        // D-Bus strings are UTF-8 without NUL: a NUL inside is replaced.
        let clean = value.contains("\0") ? value.replacingOccurrences(of: "\0", with: "\u{FFFD}") : value
        _ = clean.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
    }

    func objectPath(_ value: String) {
        _ = value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }
    }

    func bool(_ value: Bool) {
        var flag: Int32 = value ? 1 : 0
        sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &flag)
    }

    func double(_ value: Double) {
        var number = value
        sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &number)
    }

    func int64(_ value: Int64) {
        var number = value
        sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &number)
    }

    func strings(_ values: [String]) {
        container("a", "s") { for value in values { string(value) } }
    }

    func container(_ type: Character, _ contents: String, _ body: () -> Void) {
        _ = contents.withCString { sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) }
        body()
        sd_bus_message_close_container(message)
    }

    /// An a{sv} dictionary.
    func dictionary(_ entries: [(String, MPRISValue)]) {
        container("a", "{sv}") {
            for (key, value) in entries {
                container("e", "sv") {
                    string(key)
                    container("v", value.signature) { value.write(to: self) }
                }
            }
        }
    }
}

/// A value of a Metadata entry.
enum MPRISValue: Equatable {
    case string(String)
    case strings([String])
    case objectPath(String)
    case int64(Int64)

    var signature: String {
        switch self {
        case .string: return "s"
        case .strings: return "as"
        case .objectPath: return "o"
        case .int64: return "x"
        }
    }

    func write(to writer: MessageWriter) {
        switch self {
        case let .string(value): writer.string(value)
        case let .strings(values): writer.strings(values)
        case let .objectPath(value): writer.objectPath(value)
        case let .int64(value): writer.int64(value)
        }
    }
}

/// Reads the arguments of a call or the value of a property write.
struct MessageReader {
    let message: OpaquePointer

    func int64() -> Int64? {
        var value: Int64 = 0
        return sd_bus_message_read_basic(message, CChar(UInt8(ascii: "x")), &value) > 0 ? value : nil
    }

    func double() -> Double? {
        var value: Double = 0
        return sd_bus_message_read_basic(message, CChar(UInt8(ascii: "d")), &value) > 0 ? value : nil
    }

    func bool() -> Bool? {
        var value: Int32 = 0
        return sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 ? value != 0 : nil
    }

    /// A string or an object path.
    func string(_ type: Character = "s") -> String? {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(type.asciiValue!), &value) > 0, let value else { return nil }
        return String(cString: value)
    }
}
