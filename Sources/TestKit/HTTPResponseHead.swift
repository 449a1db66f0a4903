/// A response's status line and headers, framed on the wire as HTTP/1.1
/// asks: no length for 1xx, 204 and 304, chunked when no length is known.
struct HTTPResponseHead {
    var version: (major: Int, minor: Int)
    var status: Int
    var headers: [(name: String, value: String)]

    init(version: (major: Int, minor: Int) = (1, 1), status: Int, headers: [(String, String)]) {
        self.version = version
        self.status = status
        self.headers = headers.map { (name: $0.0, value: $0.1) }
    }

    /// No body is framed for 1xx, 204 and 304 (their length headers are
    /// dropped); a body without a length on HTTP/1.1 is sent chunked.
    var framedChunked: Bool {
        mayHaveBody && !has("content-length") && version.major == 1 && version.minor >= 1
    }

    private var mayHaveBody: Bool { !((100..<200).contains(status) || status == 204 || status == 304) }

    private func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name } }

    func bytes() -> [UInt8] {
        var lines = headers
        if !mayHaveBody {
            lines.removeAll { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        } else if has("content-length") {
            lines.removeAll { $0.name.lowercased() == "transfer-encoding" }
        } else if framedChunked {
            lines.removeAll { $0.name.lowercased() == "transfer-encoding" }
            lines.append(("transfer-encoding", "chunked"))
        }
        var text = "HTTP/\(version.major).\(version.minor) \(status) \(Self.reasonPhrases[status] ?? "")\r\n"
        for line in lines { text += "\(line.name): \(line.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// One piece of a chunked body: its size in hex, the bytes, CRLF.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }

    /// The registered phrases (an unknown code is sent with none).
    static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked",
        424: "Failed Dependency", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
        507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
    ]
}
