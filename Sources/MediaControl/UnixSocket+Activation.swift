import Foundation

extension UnixSocket {
    /// The listening socket systemd passed this process (socket activation:
    /// `LISTEN_PID` is ours and `LISTEN_FDS` at least 1, so descriptor 3),
    /// checked to be a listening Unix stream socket bound at `path`; nil
    /// when none was passed. The variables are cleared, so nothing this
    /// process starts takes the socket for its own.
    public static func inheritedListener(at path: String) throws(SocketError) -> UnixSocket? {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        guard let pid = variable("LISTEN_PID").flatMap({ pid_t($0) }), pid == getpid(),
              let count = variable("LISTEN_FDS").flatMap({ Int($0) }), count >= 1 else { return nil }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        let descriptor: Int32 = 3
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_TYPE) == Int32(SOCK_STREAM.rawValue), option(SO_ACCEPTCONN) == 1 else {
            throw SocketError("the socket passed by systemd (descriptor 3) is not a listening stream socket (check mediaplay.socket's ListenStream=)", code: ENOTSOCK)
        }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let bound = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX), bound == path else {
            throw SocketError("the socket passed by systemd is at \(bound.isEmpty ? "no path" : bound), not \(path) (mediaplay.socket's ListenStream= must be %t/mediaplay/mediaplay.sock)", code: EADDRNOTAVAIL)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return UnixSocket(descriptor: descriptor, inherited: true)
    }
}
