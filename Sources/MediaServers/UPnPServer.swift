import CXML
import Foundation
import MediaCache
import MediaInterfaces
import MediaFeed
import MediaModel
import MediaplayCommon

/// A DLNA/UPnP media server a feed names: `upnp+http://HOST:PORT/…/rootDesc.xml`
/// (its device description), optionally `#ID` for one container. Its
/// ContentDirectory is read with SOAP `Browse` (`BrowseDirectChildren`,
/// 500 at a time); every URL it gives must be http(s) on the host the
/// description came from.
public struct UPnPServer: Sendable {
    public static let scheme = "upnp+"
    /// The device description's URL.
    public let description: URL
    /// The container the feed starts at ("0": the whole tree).
    public let root: String
    public let host: String

    public static func isLocation(_ location: String) -> Bool {
        let lower = location.lowercased()
        return lower.hasPrefix("upnp+http://") || lower.hasPrefix("upnp+https://")
    }

    /// The feed's name between runs: the location without a login.
    public static func identity(of location: String) -> String { location.redactingUserinfo }

    public init(location: String) throws(CLIError) {
        let inner = String(location.dropFirst(Self.scheme.count))
        var text = inner
        var root = "0"
        if let hash = inner.firstIndex(of: "#") {
            text = String(inner[..<hash])
            let fragment = String(inner[inner.index(after: hash)...])
            root = fragment.removingPercentEncoding ?? fragment
            if root.isEmpty { root = "0" }
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw CLIError("\"\(location.redactingUserinfo)\" is not a UPnP server's description URL (upnp+http://HOST:PORT/…/rootDesc.xml)", exitCode: .usage)
        }
        description = url
        self.root = root
        self.host = host
    }

    /// Whether `url` is one the server may hand out: http(s), on its own host.
    func allows(_ url: URL) -> Bool {
        if Self.names(host, url.absoluteString) { return true }
        guard let scheme = url.scheme, scheme.equalsIgnoringASCIICase("http") || scheme.equalsIgnoringASCIICase("https") else { return false }
        return url.host?.equalsIgnoringASCIICase(host) == true
    }

    /// Whether `text` is `http://` or `https://`, then `host` (ASCII case
    /// aside), an optional port of digits, then a path, a query or
    /// nothing: such a URL's host is `host`, read from its bytes (Foundation's
    /// parse of every URL's parts cost 6 % of reading its pages). Anything
    /// else (user info, brackets, escapes, another case of the scheme) is
    /// left to the full check.
    static func names(_ host: String, _ text: String) -> Bool {
        var text = text, host = host
        return text.withUTF8 { bytes in
            host.withUTF8 { name in
                let schemeEnd: Int
                if bytes.starts(with: "http://".utf8) { schemeEnd = 7 } else if bytes.starts(with: "https://".utf8) { schemeEnd = 8 } else { return false }
                guard !name.isEmpty, bytes.count >= schemeEnd + name.count else { return false }
                for offset in 0..<name.count where asciiLower(bytes[schemeEnd + offset]) != asciiLower(name[offset]) { return false }
                var index = schemeEnd + name.count
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                    index += 1
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                }
                return index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#")
            }
        }
    }

    /// Answers larger than this are not a page of a directory.
    static let maximumAnswer: Int64 = 32 << 20
    static let maximumDescription: Int64 = 1 << 20

    /// The device's name and its ContentDirectory's control URL and
    /// service type, from its description.
    public struct Device: Sendable {
        public var name: String
        var controlURL: URL?
        var serviceType: String?
        public var isMediaServer: Bool { controlURL != nil }
    }

    public func device(timeout: Int) throws(CLIError) -> Device {
        let body: [UInt8]
        do {
            body = try HTTPGet.fetch(description, maximumBytes: Self.maximumDescription, timeout: timeout, followsRedirects: false).body
        } catch {
            throw Self.unreachable(host, error)
        }
        return try Self.device(in: body, at: description, host: host)
    }

    static func unreachable(_ host: String, _ error: TransferError) -> CLIError {
        switch error.kind {
        case .tooLarge: return CLIError("the UPnP server \(host) sent too much (\(error.message)); is it really a media server?", exitCode: .unavailable)
        default: return CLIError("cannot reach the UPnP server \(host): \(error.message) (is it running? check the URL)", exitCode: .unavailable)
        }
    }

    /// Reads a device description: the first device (or embedded device)
    /// with a ContentDirectory service.
    static func device(in body: [UInt8], at url: URL, host: String) throws(CLIError) -> Device {
        let garbage = CLIError("\(host) did not answer with a UPnP device description; check the URL", exitCode: .unavailable)
        guard let stream = try? XMLStream(body), let root = try? stream.root(), root.named("root") else { throw garbage }
        var base = url
        var found: Device?
        var name: String?
        func visit(_ device: XMLElement, depth: Int) {
            guard depth < 8, found == nil else { return }
            let deviceName = device.children.first { $0.named("friendlyName") }?.text.map(ServerText.clean)
            if name == nil { name = deviceName }
            for child in device.children where child.named("serviceList") {
                for service in child.children where service.named("service") {
                    let type = service.children.first { $0.named("serviceType") }?.text ?? ""
                    guard type.hasPrefix("urn:schemas-upnp-org:service:ContentDirectory:"),
                          let control = service.children.first(where: { $0.named("controlURL") })?.text,
                          let controlURL = URL(string: control, relativeTo: base)?.absoluteURL
                    else { continue }
                    found = Device(name: deviceName ?? name ?? host, controlURL: controlURL, serviceType: type)
                    return
                }
            }
            for child in device.children where child.named("deviceList") {
                for embedded in child.children where embedded.named("device") { visit(embedded, depth: depth + 1) }
            }
        }
        do {
            while let element = try stream.next(atDepth: 1) {
                if element.named("URLBase"), let text = element.text, let given = URL(string: text) { base = given }
                if element.named("device") { visit(element, depth: 0) }
            }
        } catch {
            throw garbage
        }
        return found ?? Device(name: name ?? host, controlURL: nil, serviceType: nil)
    }
}

/// One entry of a container, as DIDL-Lite gives it.
struct DIDLEntry {
    var id: String
    var isContainer: Bool
    var title: String
    var upnpClass: String
    var artist: String?
    var album: String?
    var track: Int?
    var duration: Double?
    var url: String?
    var mime: String?
    var albumArt: String?
}

/// A ContentDirectory's `Browse`, one page at a time.
struct ContentDirectory {
    let server: UPnPServer
    let controlURL: URL
    let serviceType: String
    static let pageSize = 500

    /// The SOAP answer of one Browse: the counts it states, its DIDL-Lite
    /// still to read (the larger part of the work).
    struct Envelope {
        let result: [UInt8]?
        /// NumberReturned (nil: not stated; then as many as the result holds).
        let returned: Int?
        let total: Int?
        let host: String

        func entries() throws(CLIError) -> [DIDLEntry] {
            try result.map { bytes throws(CLIError) in try ContentDirectory.entries(inDIDL: bytes, host: host) } ?? []
        }
    }

    /// The server's answer to one Browse, as it came.
    func fetch(_ container: String, from start: Int, timeout: Int, cancellation: TransferCancellation? = nil) throws(CLIError) -> [UInt8] {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>\
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">\
            <s:Body><u:Browse xmlns:u="\(Self.escaped(serviceType))"><ObjectID>\(Self.escaped(container))</ObjectID>\
            <BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter><StartingIndex>\(start)</StartingIndex>\
            <RequestedCount>\(Self.pageSize)</RequestedCount><SortCriteria></SortCriteria></u:Browse></s:Body></s:Envelope>
            """
        let response: HTTPResponse
        do {
            response = try HTTPGet.fetch(
                controlURL, maximumBytes: UPnPServer.maximumAnswer, timeout: timeout, post: Array(body.utf8),
                headers: ["Content-Type: text/xml; charset=\"utf-8\"", "SOAPACTION: \"\(serviceType)#Browse\""], followsRedirects: false,
                cancellation: cancellation
            )
        } catch {
            throw UPnPServer.unreachable(server.host, error)
        }
        return response.body
    }

    /// The SOAP envelope of a Browse answer (a fault is the server's refusal).
    func envelope(_ body: [UInt8], of container: String) throws(CLIError) -> Envelope {
        var answer = mp_browse_answer()
        defer { mp_browse_answer_free(&answer) }
        guard Self.read(body, { mp_browse_answer_read($0, $1, &answer, &$2) }) else { throw CLIError("the UPnP server \(server.host) did not answer Browse with a SOAP envelope", exitCode: .unavailable) }
        let text = SpanText(start: answer.text, count: answer.text_length)
        if answer.fault != 0 {
            // UPnP's own error (701 "No such object"), else SOAP's fault string.
            var said = (text.string(answer.error_description) ?? text.string(answer.fault_string)).map(ServerText.clean) ?? "a fault"
            if let code = text.string(answer.error_code).flatMap({ whole($0, in: 0...9_999) }) { said += " (UPnP error \(code))" }
            throw CLIError("the UPnP server \(server.host) refused Browse of \(container): \(said)", exitCode: .unavailable)
        }
        return Envelope(
            result: text.bytes(answer.result), returned: text.string(answer.returned).flatMap { whole($0, in: 0...1_000_000) },
            total: text.string(answer.total).flatMap { whole($0, in: 0...10_000_000) }, host: server.host
        )
    }

    static func entries(inDIDL bytes: [UInt8], host: String) throws(CLIError) -> [DIDLEntry] {
        var didl = mp_didl()
        defer { mp_didl_free(&didl) }
        guard read(bytes, { mp_didl_read($0, $1, &didl, &$2) }) else { throw CLIError("the UPnP server \(host) sent a Browse result that is not DIDL-Lite", exitCode: .unavailable) }
        let text = SpanText(start: didl.text, count: didl.text_length)
        var entries: [DIDLEntry] = []
        entries.reserveCapacity(didl.count)
        for read in UnsafeBufferPointer(start: didl.entries, count: didl.count) {
            let id = text.string(read.id) ?? ""
            entries.append(DIDLEntry(
                id: id, isContainer: read.is_container != 0, title: text.string(read.title).map(ServerText.clean) ?? id,
                upnpClass: text.string(read.upnp_class) ?? "", artist: text.string(read.artist).map(ServerText.clean),
                album: text.string(read.album).map(ServerText.clean), track: text.string(read.track).flatMap { whole($0, in: 0...99_999) },
                duration: text.string(read.duration).flatMap(Self.seconds), url: text.string(read.url), mime: text.string(read.mime),
                albumArt: text.string(read.album_art)
            ))
        }
        return entries
    }

    /// One of CXML's UPnP readers over `bytes`: whether it read them (why
    /// not is one line of ours, the same whatever libxml2 said).
    private static func read(_ bytes: [UInt8], _ reader: (UnsafePointer<CChar>?, Int, inout mp_xml_error) -> Int32) -> Bool {
        var error = mp_xml_error()
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { reader($0.baseAddress, $0.count, &error) }
        } == 1
    }

    /// DIDL-Lite's `H+:MM:SS[.F]` as seconds.
    /// By bytes: split into strings, it was a fifth of reading a page.
    static func seconds(_ text: String) -> Double? {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(of: UInt8(ascii: ":")),
              let second = bytes[bytes.index(after: first)...].firstIndex(of: UInt8(ascii: ":")),
              let hours = digits(bytes[..<first], atMost: 5).flatMap({ $0 <= 10_000 ? $0 : nil }),
              let minutes = digits(bytes[bytes.index(after: first)..<second], atMost: 2).flatMap({ $0 <= 59 ? $0 : nil }),
              let secondsValue = Double(Substring(bytes[bytes.index(after: second)...])), secondsValue.isFinite, secondsValue >= 0, secondsValue < 60
        else { return nil }
        return CheckedNumber.duration(Double(hours * 3600 + minutes * 60) + secondsValue)
    }

    /// One to `most` decimal digits and nothing else, as a number.
    private static func digits(_ bytes: Substring.UTF8View.SubSequence, atMost most: Int) -> Int? {
        guard !bytes.isEmpty, bytes.count <= most else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// The text a CXML reading's spans point into (valid until it is freed).
private struct SpanText {
    let bytes: UnsafeRawBufferPointer

    init(start: UnsafeMutablePointer<CChar>?, count: Int) {
        bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    }

    /// nil when absent; within the text, or nil.
    private func range(_ span: mp_span) -> Range<Int>? {
        guard span.length >= 0, span.offset >= 0, span.offset <= bytes.count - span.length else { return nil }
        return span.offset..<span.offset + span.length
    }

    func string(_ span: mp_span) -> String? {
        range(span).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    func bytes(_ span: mp_span) -> [UInt8]? {
        range(span).map { Array(bytes[$0]) }
    }
}
