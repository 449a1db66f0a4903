import Foundation
import MediaModel

#if canImport(Glibc)
import Glibc
#endif

/// A media server found on the network: its name and the feed to pass.
public struct DiscoveredServer: Sendable, Codable, Equatable {
    /// Its FriendlyName.
    public var name: String
    /// `upnp+http://HOST:PORT/…`: what --feed takes.
    public var feed: String
    /// The address it answered from.
    public var address: String
}

/// `feeds discover`: SSDP's M-SEARCH for media servers, sent on every IPv4
/// interface that does multicast, answers read until the timeout (on the
/// clock handed in). An answer counts only if its description is on the
/// address it came from, over http, and names a ContentDirectory.
public enum SSDPDiscovery {
    static let group = "239.255.255.250"
    static let port: UInt16 = 1900
    static let searchTarget = "urn:schemas-upnp-org:device:MediaServer:1"
    /// More answers than this are a flood, not a network's servers.
    static let maximumAnswers = 1000

    /// Which LOCATIONs are worth a description's fetch: http, on the
    /// address the answer came from, new, at most `perAddress` from one
    /// address (a host flooding LOCATIONs is one host) and `total` in all.
    struct Locations {
        static let perAddress = 4
        static let total = 64
        private var seen: Set<String> = []
        private var byAddress: [String: Int] = [:]

        mutating func accept(_ url: URL, from address: String) -> Bool {
            guard url.scheme?.lowercased() == "http", url.host == address, seen.count < Self.total,
                  byAddress[address, default: 0] < Self.perAddress, seen.insert(url.absoluteString).inserted
            else { return false }
            byAddress[address, default: 0] += 1
            return true
        }
    }

    /// The servers that answered within `timeout` seconds, by name: answers
    /// are listened for until a little before the end (a server answers
    /// within MX, a second), each description fetched as its answer comes,
    /// all of them at once; what has not come by the end is left out.
    public static func discover(timeout: Double, clock: any MediaClock = SystemClock.shared) -> [DiscoveredServer] {
        let deadline = clock.now + timeout
        let listenUntil = deadline - min(2, timeout / 3)
        let sockets = interfaces().compactMap(openSocket)
        defer { for socket in sockets { close(socket) } }
        let message = Array((
            "M-SEARCH * HTTP/1.1\r\nHOST: \(group):\(port)\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\nST: \(searchTarget)\r\n"
                + "USER-AGENT: Linux/1 UPnP/1.1 mediaplay/0.1\r\n\r\n"
        ).utf8)
        // Twice, as UPnP advises: a datagram may be lost.
        for socket in sockets { send(message, on: socket) }
        for socket in sockets { send(message, on: socket) }
        let fetches = Fetches()
        var locations = Locations()
        var answers = 0
        var descriptors = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while answers < maximumAnswers, !descriptors.isEmpty {
            let left = listenUntil - clock.now
            guard left > 0 else { break }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(left, 60) * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents & Int16(POLLIN) != 0 {
                guard let (text, from) = receive(on: descriptors[index].fd) else { continue }
                answers += 1
                guard let location = Self.location(in: text), let url = URL(string: location), locations.accept(url, from: from) else { continue }
                // Its description, on a thread of its own (a fetch blocks), within what is left.
                let seconds = max(1, Int((deadline - clock.now).rounded(.down)))
                fetches.started()
                Thread.detachNewThread {
                    let feed = "upnp+" + url.absoluteString
                    var found: DiscoveredServer?
                    if let server = try? UPnPServer(location: feed), let device = try? server.device(timeout: seconds), device.isMediaServer {
                        found = DiscoveredServer(name: device.name, feed: feed, address: from)
                    }
                    fetches.ended(found)
                }
            }
        }
        let found = fetches.wait(clock: clock, until: deadline)
        return found.sorted { $0.name.lowercased() != $1.name.lowercased() ? $0.name.lowercased() < $1.name.lowercased() : $0.feed < $1.feed }
    }

    /// The descriptions being fetched, and the servers found so far.
    final class Fetches: @unchecked Sendable {
        private let condition = NSCondition()
        private var pending = 0
        private var found: [DiscoveredServer] = []

        func started() {
            condition.lock()
            pending += 1
            condition.unlock()
        }

        func ended(_ server: DiscoveredServer?) {
            condition.lock()
            pending -= 1
            if let server { found.append(server) }
            condition.broadcast()
            condition.unlock()
        }

        /// The servers found when every fetch has ended or `deadline` came.
        func wait(clock: any MediaClock, until deadline: Double) -> [DiscoveredServer] {
            condition.lock()
            defer { condition.unlock() }
            while pending > 0, clock.wait(on: condition, until: deadline) {}
            return found
        }
    }

    /// The LOCATION header of an answer (`HTTP/1.1 200 OK`) or a notice.
    static func location(in text: String) -> String? {
        let lines = text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
        guard let first = lines.first, first.hasPrefix("HTTP/1.1 200") || first.hasPrefix("HTTP/1.0 200") || first.hasPrefix("NOTIFY") else { return nil }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "location" {
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                return value.isEmpty || value.utf8.count > 1000 ? nil : value
            }
        }
        return nil
    }

    /// The IPv4 addresses of the interfaces that are up and do multicast
    /// (loopback too, when it says it does).
    static func interfaces() -> [in_addr] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [in_addr] = []
        var seen: Set<UInt32> = []
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = next {
            next = entry.pointee.ifa_next
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_MULTICAST) != 0,
                  let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET)
            else { continue }
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            if seen.insert(ipv4.s_addr).inserted { result.append(ipv4) }
        }
        return result
    }

    /// A UDP socket bound to `interface`, its multicast sent out there.
    static func openSocket(_ interface: in_addr) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = interface
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var outgoing = interface
        var ttl: UInt8 = 2
        guard bound == 0,
              setsockopt(socket, Int32(IPPROTO_IP), IP_MULTICAST_IF, &outgoing, socklen_t(MemoryLayout<in_addr>.size)) == 0,
              setsockopt(socket, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(1)) == 0
        else {
            close(socket)
            return nil
        }
        return socket
    }

    static func send(_ message: [UInt8], on socket: Int32) {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        inet_pton(AF_INET, group, &target.sin_addr)
        _ = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// One datagram (at most 4 KiB read) and the address it came from.
    static func receive(on socket: Int32) -> (String, String)? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &from) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length) }
            }
        }
        guard count > 0 else { return nil }
        var name = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &from.sin_addr, &name, socklen_t(name.count)) != nil else { return nil }
        return (String(decoding: buffer.prefix(count), as: UTF8.self), String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
