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
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return url.host?.lowercased() == host.lowercased()
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

    /// One page of `container`'s children and the total the server states.
    func browse(_ container: String, from start: Int, timeout: Int) throws(CLIError) -> (entries: [DIDLEntry], returned: Int, total: Int?) {
        let envelope = try self.envelope(try fetch(container, from: start, timeout: timeout), of: container)
        let entries = try envelope.entries()
        return (entries, envelope.returned ?? entries.count, envelope.total)
    }

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
    func fetch(_ container: String, from start: Int, timeout: Int) throws(CLIError) -> [UInt8] {
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
                headers: ["Content-Type: text/xml; charset=\"utf-8\"", "SOAPACTION: \"\(serviceType)#Browse\""], followsRedirects: false
            )
        } catch {
            throw UPnPServer.unreachable(server.host, error)
        }
        return response.body
    }

    /// The SOAP envelope of a Browse answer (a fault is the server's refusal).
    func envelope(_ body: [UInt8], of container: String) throws(CLIError) -> Envelope {
        let garbage = CLIError("the UPnP server \(server.host) did not answer Browse with a SOAP envelope", exitCode: .unavailable)
        guard let stream = try? XMLStream(body), (try? stream.root()) != nil else { throw garbage }
        var result: [UInt8]?
        var returned: Int?
        var total: Int?
        do {
            while let element = try stream.next(atDepth: 1) {
                guard element.named("Body") else { continue }
                for answer in element.children {
                    if answer.named("Fault") {
                        let said = answer.text.map(ServerText.clean) ?? "a fault"
                        throw CLIError("the UPnP server \(server.host) refused Browse of \(container): \(said)", exitCode: .unavailable)
                    }
                    for field in answer.children {
                        if field.named("Result") { result = field.textBytes }
                        if field.named("NumberReturned") { returned = field.text.flatMap { whole($0, in: 0...1_000_000) } }
                        if field.named("TotalMatches") { total = field.text.flatMap { whole($0, in: 0...10_000_000) } }
                    }
                }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw garbage
        }
        return Envelope(result: result, returned: returned, total: total, host: server.host)
    }

    static func entries(inDIDL bytes: [UInt8], host: String) throws(CLIError) -> [DIDLEntry] {
        let garbage = CLIError("the UPnP server \(host) sent a Browse result that is not DIDL-Lite", exitCode: .unavailable)
        guard let stream = try? XMLStream(bytes), let root = try? stream.root(), root.named("DIDL-Lite") else { throw garbage }
        var entries: [DIDLEntry] = []
        do {
            while let element = try stream.next(atDepth: 1) {
                let isContainer = element.named("container")
                guard isContainer || element.named("item"), let id = element.attribute("id"), id.utf8.count <= 1000 else { continue }
                var entry = DIDLEntry(id: id, isContainer: isContainer, title: id, upnpClass: "")
                var resources: [(url: String, mime: String?, duration: Double?)] = []
                // By name in place (no String made for a name; 10,000 items
                // have some 80,000 children).
                element.forEachChild { child in
                    if child.named("title") {
                        if let text = child.text { entry.title = ServerText.clean(text) }
                    } else if child.named("class") {
                        entry.upnpClass = child.text ?? ""
                    } else if child.named("artist") || child.named("creator") {
                        if entry.artist == nil { entry.artist = child.text.map(ServerText.clean) }
                    } else if child.named("album") {
                        entry.album = child.text.map(ServerText.clean)
                    } else if child.named("originalTrackNumber") {
                        entry.track = child.text.flatMap { whole($0, in: 0...99_999) }
                    } else if child.named("albumArtURI") {
                        if entry.albumArt == nil { entry.albumArt = child.text }
                    } else if child.named("res"), let url = child.text {
                        let mime = child.attribute("protocolInfo").flatMap(Self.mimeType)
                        resources.append((url, mime, child.attribute("duration").flatMap(Self.seconds)))
                    }
                }
                // The first resource that is plain http: the original file, in DLNA's order.
                if let first = resources.first(where: { $0.url.lowercased().hasPrefix("http") }) ?? resources.first {
                    entry.url = first.url
                    entry.mime = first.mime
                    entry.duration = first.duration
                }
                entries.append(entry)
            }
        } catch {
            throw garbage
        }
        return entries
    }

    /// The third field of a `protocolInfo` (`http-get:*:audio/mpeg:…`), by
    /// bytes (split into strings, it was a tenth of a 10,000-item list).
    static func mimeType(_ protocolInfo: String) -> String? {
        let bytes = protocolInfo.utf8
        guard let first = bytes.firstIndex(of: UInt8(ascii: ":")),
              let second = bytes[bytes.index(after: first)...].firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let rest = bytes[bytes.index(after: second)...]
        return String(Substring(rest.prefix { $0 != UInt8(ascii: ":") }))
    }

    /// DIDL-Lite's `H+:MM:SS[.F]` as seconds.
    static func seconds(_ text: String) -> Double? {
        let parts = text.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let hours = whole(String(Substring(parts[0])), in: 0...10_000), let minutes = whole(String(Substring(parts[1])), in: 0...59),
              let secondsValue = Double(Substring(parts[2])), secondsValue.isFinite, secondsValue >= 0, secondsValue < 60
        else { return nil }
        return CheckedNumber.duration(Double(hours * 3600 + minutes * 60) + secondsValue)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
