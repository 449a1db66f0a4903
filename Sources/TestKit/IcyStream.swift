import Foundation
import NIOCore
import NIOHTTP1

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

/// Writes one connection's live stream, tick by tick on its event loop.
final class IcyPump: @unchecked Sendable {
    private let channel: any Channel
    private let spec: IcyStreamSpec
    private let withMetadata: Bool
    private let cutAfter: Int?
    private var sentAudio = 0
    private var untilMetadata: Int
    private var task: RepeatedTask?
    private var bursting = true

    init(channel: any Channel, spec: IcyStreamSpec, withMetadata: Bool, cutAfter: Int?) {
        self.channel = channel
        self.spec = spec
        self.withMetadata = withMetadata
        self.cutAfter = cutAfter
        untilMetadata = spec.metaint
    }

    func start() {
        let interval = TimeAmount.milliseconds(50)
        task = channel.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { [self] _ in tick() }
        channel.closeFuture.whenComplete { [self] _ in task?.cancel() }
    }

    private func tick() {
        guard channel.isActive else {
            task?.cancel()
            return
        }
        var budget = max(1, spec.bytesPerSecond / 20)
        if bursting {
            bursting = false
            budget += spec.burst
        }
        var out: [UInt8] = []
        while budget > 0 {
            if let cutAfter, sentAudio >= cutAfter {
                flush(out)
                task?.cancel()
                BodyPump.resetConnection(channel)
                return
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
        flush(out)
    }

    private func flush(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes))), promise: nil)
    }

    private func metadataBlock() -> [UInt8] {
        let index = (sentAudio / max(1, spec.titleEvery)) % max(1, spec.titles.count)
        var text = Array("StreamTitle='\(spec.titles.isEmpty ? "" : spec.titles[index])';".utf8)
        let blocks = (text.count + 15) / 16
        text += [UInt8](repeating: 0, count: blocks * 16 - text.count)
        return [UInt8(blocks)] + text
    }
}
