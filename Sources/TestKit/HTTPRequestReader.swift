import CLinux

/// A request's head as the client sent it (bodies are read and dropped:
/// the server answers no request by its body).
struct HTTPRequestHead {
    var method: String
    /// The request target, query included.
    var target: String
    var version: (major: Int, minor: Int)
    /// In the order sent, names as sent.
    var headers: [(name: String, value: String)]

    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// HTTP/1.1 keeps the connection unless told "close"; 1.0 only when told
    /// "keep-alive"; told more than one thing: close.
    var keepAlive: Bool {
        let said = values("connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() }
            .filter { $0 == "close" || $0 == "keep-alive" }
        if said.isEmpty { return version.major == 1 && version.minor >= 1 }
        return said == ["keep-alive"]
    }
}

/// Reads one connection's requests in turn: a head, then its body (by
/// Content-Length or chunked) read past, so that the next request starts
/// where this one ends.
struct HTTPRequestReader {
    enum Outcome {
        case request(HTTPRequestHead)
        /// The client closed (or the server is stopping) between requests.
        case closed
        /// Not HTTP/1.x as the server reads it: answered 400, then closed.
        case malformed
    }

    /// Longer heads are refused with 400 (80 KiB, the usual parsers' limit).
    static let maximumHead = 80 * 1024

    private let socket: ConnectionSocket
    /// Received and not yet used.
    private var pending: [UInt8] = []

    init(socket: ConnectionSocket) {
        self.socket = socket
    }

    mutating func next() -> Outcome {
        guard let headBytes = readHead() else { return pending.count > Self.maximumHead ? .malformed : .closed }
        guard headBytes.count <= Self.maximumHead, let head = Self.parseHead(headBytes) else { return .malformed }
        let lengths = head.values("content-length")
        if head.values("transfer-encoding").contains(where: { $0.lowercased().contains("chunked") }) {
            return skipChunkedBody() ? .request(head) : .malformed
        }
        if let length = lengths.last {
            guard let count = Int(length), count >= 0, Set(lengths).count == 1 else { return .malformed }
            return skip(count) ? .request(head) : .closed
        }
        return .request(head)
    }

    /// The bytes up to the blank line ending a head (leading blank lines
    /// skipped); nil when the peer ends first or the head is too long.
    private mutating func readHead() -> [UInt8]? {
        while true {
            while pending.starts(with: [13, 10]) { pending.removeFirst(2) }
            if let end = Self.find([13, 10, 13, 10], in: pending) {
                let head = Array(pending[0..<end])
                pending.removeFirst(end + 4)
                return head
            }
            guard pending.count <= Self.maximumHead, socket.receive(appendingTo: &pending) else { return nil }
        }
    }

    /// One CRLF-ended line (without the CRLF); nil when the peer ends first.
    private mutating func readLine() -> [UInt8]? {
        while true {
            if let end = Self.find([13, 10], in: pending) {
                let line = Array(pending[0..<end])
                pending.removeFirst(end + 2)
                return line
            }
            guard pending.count <= Self.maximumHead, socket.receive(appendingTo: &pending) else { return nil }
        }
    }

    /// Reads past `count` bytes of body without keeping them.
    private mutating func skip(_ count: Int) -> Bool {
        var left = count
        while true {
            let taken = min(left, pending.count)
            pending.removeFirst(taken)
            left -= taken
            if left == 0 { return true }
            guard socket.receive(appendingTo: &pending) else { return false }
        }
    }

    /// Chunks ("size;ext CRLF data CRLF"), the last of size 0, then trailers.
    private mutating func skipChunkedBody() -> Bool {
        while true {
            guard let line = readLine() else { return false }
            let sizeText = String(decoding: line, as: UTF8.self).split(separator: ";", maxSplits: 1).first ?? ""
            guard let size = Int(sizeText.trimmingOWS(), radix: 16), size >= 0 else { return false }
            if size == 0 { break }
            guard skip(size), readLine() == [] else { return false }
        }
        while let trailer = readLine() {
            if trailer.isEmpty { return true }
        }
        return false
    }

    /// "METHOD target HTTP/x.y" and "Name: value" lines.
    static func parseHead(_ bytes: [UInt8]) -> HTTPRequestHead? {
        // "\r\n" is one Character in Swift: the split is by lines.
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }), !parts[1].isEmpty,
              parts[2].hasPrefix("HTTP/"), parts[2].count == 8,
              let major = parts[2].dropFirst(5).first?.wholeNumberValue, parts[2].dropFirst(6).first == ".",
              let minor = parts[2].last?.wholeNumberValue
        else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
            headers.append((String(name), String(line[line.index(after: colon)...].trimmingOWS())))
        }
        return HTTPRequestHead(method: String(parts[0]), target: String(parts[1]), version: (major, minor), headers: headers)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        let found = haystack.withUnsafeBytes { bytes in
            needle.withUnsafeBytes { mp_find_bytes(bytes.baseAddress, bytes.count, $0.baseAddress, $0.count) }
        }
        return found < 0 ? nil : found
    }
}

extension StringProtocol {
    /// Without the spaces and tabs HTTP allows around a value.
    func trimmingOWS() -> String {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(self[first...last])
    }
}
