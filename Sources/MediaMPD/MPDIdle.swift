import CLinux
import Foundation
import Glibc
import MediaModel

/// MPD's idle subsystems (`idle player mixer`, answered `changed: player`).
public struct MPDSubsystems: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let database = MPDSubsystems(rawValue: 1 << 0)
    public static let update = MPDSubsystems(rawValue: 1 << 1)
    public static let storedPlaylist = MPDSubsystems(rawValue: 1 << 2)
    public static let playlist = MPDSubsystems(rawValue: 1 << 3)
    public static let player = MPDSubsystems(rawValue: 1 << 4)
    public static let mixer = MPDSubsystems(rawValue: 1 << 5)
    public static let output = MPDSubsystems(rawValue: 1 << 6)
    public static let options = MPDSubsystems(rawValue: 1 << 7)
    public static let partition = MPDSubsystems(rawValue: 1 << 8)
    public static let sticker = MPDSubsystems(rawValue: 1 << 9)
    public static let subscription = MPDSubsystems(rawValue: 1 << 10)
    public static let message = MPDSubsystems(rawValue: 1 << 11)
    public static let neighbor = MPDSubsystems(rawValue: 1 << 12)
    public static let mount = MPDSubsystems(rawValue: 1 << 13)

    /// The names, in the order `changed:` lines are written.
    public static let names: [(String, MPDSubsystems)] = [
        ("database", .database), ("stored_playlist", .storedPlaylist), ("playlist", .playlist), ("player", .player),
        ("mixer", .mixer), ("output", .output), ("options", .options), ("partition", .partition), ("sticker", .sticker),
        ("update", .update), ("subscription", .subscription), ("message", .message), ("neighbor", .neighbor), ("mount", .mount),
    ]

    public static let all = MPDSubsystems(rawValue: (1 << 14) - 1)

    public static func named(_ name: String) -> MPDSubsystems? {
        names.first { $0.0 == name.lowercased() }?.1
    }
}

/// Who waits in `idle`, and what changed since each connection last heard:
/// a change is added to every connection's pending set and wakes the ones
/// blocked in `idle` through their pipe (their threads sleep in poll(2)
/// meanwhile, so a hundred idle clients cost no CPU).
final class MPDIdleHub: @unchecked Sendable {
    final class Listener: @unchecked Sendable {
        /// Read end, polled by the connection; a byte written to `poke` wakes it.
        let wake: Int32
        let poke: Int32
        /// Guarded by the hub's lock.
        var pending: MPDSubsystems = []

        init() {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends {
                    _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                }
            }
            wake = ends[0]
            poke = ends[1]
        }

        deinit {
            close(wake)
            close(poke)
        }
    }

    private let lock = NSCondition()
    private var listeners: [ObjectIdentifier: Listener] = [:]
    /// How many connections wait in `idle` now.
    private var idling = 0

    func enterIdle() {
        lock.withLock {
            idling += 1
            lock.broadcast()
        }
    }

    func leaveIdle() {
        lock.withLock { idling -= 1 }
    }

    /// Blocks until `count` connections wait in `idle` (false: not within `seconds` on `clock`).
    func waitForIdle(_ count: Int, seconds: Double, clock: any MediaClock) -> Bool {
        let deadline = clock.now + seconds
        lock.lock()
        defer { lock.unlock() }
        while idling < count {
            guard clock.wait(on: lock, until: deadline) else { return idling >= count }
        }
        return true
    }

    func add() -> Listener {
        let listener = Listener()
        lock.withLock { listeners[ObjectIdentifier(listener)] = listener }
        return listener
    }

    func remove(_ listener: Listener) {
        _ = lock.withLock { listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    /// Something changed: every connection hears it.
    func post(_ changed: MPDSubsystems) {
        guard !changed.isEmpty else { return }
        lock.withLock {
            for listener in listeners.values {
                listener.pending.formUnion(changed)
                // A full pipe already wakes it.
                var one: UInt8 = 1
                _ = write(listener.poke, &one, 1)
            }
        }
    }

    /// Takes what changed among `wanted` for `listener` (and leaves the rest pending).
    func take(_ wanted: MPDSubsystems, for listener: Listener) -> MPDSubsystems {
        lock.withLock {
            let found = listener.pending.intersection(wanted)
            listener.pending.subtract(found)
            var drained = [UInt8](repeating: 0, count: 64)
            while drained.withUnsafeMutableBytes({ read(listener.wake, $0.baseAddress, $0.count) }) > 0 {}
            return found
        }
    }
}
