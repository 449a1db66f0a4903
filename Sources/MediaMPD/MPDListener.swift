import CLinux
import Foundation
import Glibc

/// Why the MPD listener cannot start (an address that does not parse or bind).
public struct MPDListenError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// A listen address, `HOST:PORT`: `127.0.0.1:6600`, `[::1]:6600`,
/// `0.0.0.0:6600`, `localhost:6600` (port 0: one the kernel chooses, for tests).
public struct MPDAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public init(parsing text: String) throws(MPDListenError) {
        let usage = "expected HOST:PORT (127.0.0.1:6600, [::1]:6600), not \"\(text)\""
        guard let colon = text.lastIndex(of: ":") else { throw MPDListenError(message: usage) }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = text[text.index(after: colon)...]
        guard !host.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText), (0...65535).contains(port) else {
            throw MPDListenError(message: usage)
        }
        self.host = host
        self.port = UInt16(port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether every address the host names is this machine's loopback.
    public var isLoopback: Bool {
        let found = (try? resolved()) ?? []
        return !found.isEmpty && found.allSatisfy(\.loopback)
    }

    struct Resolved {
        var family: Int32
        var address: [UInt8]
        var loopback: Bool
    }

    func resolved() throws(MPDListenError) -> [Resolved] {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0, let list else {
            throw MPDListenError(message: "cannot resolve \(host): \(String(cString: gai_strerror(result)))")
        }
        defer { freeaddrinfo(list) }
        var found: [Resolved] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                var loopback = false
                if current.pointee.ai_family == AF_INET {
                    let inet = UnsafeRawPointer(address).load(as: sockaddr_in.self)
                    loopback = UInt32(bigEndian: inet.sin_addr.s_addr) >> 24 == 127
                } else if current.pointee.ai_family == AF_INET6 {
                    let inet6 = UnsafeRawPointer(address).load(as: sockaddr_in6.self)
                    loopback = withUnsafeBytes(of: inet6.sin6_addr) { raw in raw.prefix(15).allSatisfy { $0 == 0 } && raw[15] == 1 }
                }
                if !found.contains(where: { $0.address == bytes }) {
                    found.append(Resolved(family: current.pointee.ai_family, address: bytes, loopback: loopback))
                }
            }
            entry = current.pointee.ai_next
        }
        return found
    }

    /// Listening sockets for every address the host names.
    func listen() throws(MPDListenError) -> [Int32] {
        var sockets: [Int32] = []
        var lastError = ""
        for address in try resolved() {
            let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if address.family == AF_INET6 { setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
            let bound = address.address.withUnsafeBytes { raw in
                bind(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
                lastError = String(cString: strerror(errno))
                close(descriptor)
                continue
            }
            sockets.append(descriptor)
        }
        guard !sockets.isEmpty else { throw MPDListenError(message: "cannot listen on \(self): \(lastError.isEmpty ? "no usable address" : lastError)") }
        return sockets
    }
}

/// The port a listening socket got (for port 0: one the kernel chose).
func boundPort(_ descriptor: Int32) -> UInt16 {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    if Int32(storage.ss_family) == AF_INET6 {
        return withUnsafeBytes(of: storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
    }
    return withUnsafeBytes(of: storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
}
