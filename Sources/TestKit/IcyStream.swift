/// A live stream for `TestHTTPServer`, as an Icecast or SHOUTcast server
/// sends internet radio: no length, `icy-name`, and with `Icy-MetaData: 1`
/// asked, `icy-metaint` and a metadata block (`StreamTitle='…';`) every
/// `metaint` bytes. The audio loops forever at `bytesPerSecond`; the title
/// moves to the next of `titles` every `titleEvery` bytes of audio.
public struct IcyStreamSpec: Sendable {
    public var audio: [UInt8]
    public var metaint: Int
    public var titles: [String]
    public var titleEvery: Int
    public var bytesPerSecond: Int
    /// The first connections are cut after this many bytes of audio (a
    /// dropped stream; later connections go on).
    public var dropAfter: Int?
    public var drops: Int
    /// Audio sent at once on connecting, as Icecast's burst-on-connect does
    /// (the player starts with some buffer, not at the edge).
    public var burst: Int = 64 * 1024

    public init(audio: [UInt8], metaint: Int = 8192, titles: [String], titleEvery: Int, bytesPerSecond: Int, dropAfter: Int? = nil, drops: Int = 0) {
        self.audio = audio
        self.metaint = metaint
        self.titles = titles
        self.titleEvery = titleEvery
        self.bytesPerSecond = bytesPerSecond
        self.dropAfter = dropAfter
        self.drops = drops
    }
}

extension TestHTTPServer {
    /// Serves a live stream at `path` (see `IcyStreamSpec`).
    public func serveLive(_ path: String, _ spec: IcyStreamSpec) {
        shared.state.withLock { $0.live[path] = spec }
    }

    /// How many connections `path`'s live stream has had.
    public func liveConnections(_ path: String) -> Int {
        shared.state.withLock { $0.liveConnections[path] ?? 0 }
    }
}

/// Sends one connection's live stream, a tick every 50 ms, until the client
/// leaves, the server stops, or the connection's cut comes (a reset).
struct IcyPump {
    private let socket: ConnectionSocket
    private let spec: IcyStreamSpec
    private let withMetadata: Bool
    private let cutAfter: Int?
    /// False for HEAD: the stream runs but its bytes are not sent (a
    /// response to HEAD has no body), so the cut still comes.
    private let bodyAllowed: Bool
    private var sentAudio = 0
    private var untilMetadata: Int
    private var bursting = true

    init(socket: ConnectionSocket, spec: IcyStreamSpec, withMetadata: Bool, cutAfter: Int?, bodyAllowed: Bool) {
        self.socket = socket
        self.spec = spec
        self.withMetadata = withMetadata
        self.cutAfter = cutAfter
        self.bodyAllowed = bodyAllowed
        untilMetadata = spec.metaint
    }

    mutating func run() -> ConnectionEnd {
        while true {
            if let end = tick() { return end }
            // The 50 ms between ticks, awake early only if the client leaves.
            if socket.wait(milliseconds: 50) == .peerGone { return .close }
        }
    }

    /// One tick's bytes, sent as one chunk; nil while the stream goes on.
    private mutating func tick() -> ConnectionEnd? {
        var budget = max(1, spec.bytesPerSecond / 20)
        if bursting {
            bursting = false
            budget += spec.burst
        }
        var out: [UInt8] = []
        while budget > 0 {
            if let cutAfter, sentAudio >= cutAfter {
                return flush(out) ? .reset : .close
            }
            if withMetadata, untilMetadata == 0 {
                out += metadataBlock()
                untilMetadata = spec.metaint
                continue
            }
            let offset = sentAudio % spec.audio.count
            let take = min(budget, spec.audio.count - offset, withMetadata ? untilMetadata : Int.max)
            out += spec.audio[offset..<(offset + take)]
            sentAudio += take
            budget -= take
            if withMetadata { untilMetadata -= take }
        }
        return flush(out) ? nil : .close
    }

    /// False once the client is gone.
    private func flush(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, bodyAllowed else { return true }
        return socket.send(HTTPResponseHead.chunk(bytes))
    }

    private func metadataBlock() -> [UInt8] {
        let index = (sentAudio / max(1, spec.titleEvery)) % max(1, spec.titles.count)
        var text = Array("StreamTitle='\(spec.titles.isEmpty ? "" : spec.titles[index])';".utf8)
        let blocks = (text.count + 15) / 16
        text += [UInt8](repeating: 0, count: blocks * 16 - text.count)
        return [UInt8(blocks)] + text
    }
}
