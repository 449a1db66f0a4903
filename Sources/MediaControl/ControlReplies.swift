import Foundation
import MediaFeed
import MediaModel

/// `status`: what the daemon plays, and every item that is not idle.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var current: ItemStatus?
    public var items: [ItemStatus]
    public var feed: String
    public var pid: Int32
    public var version: String
    /// Volume and mute, and the playlist's modes (absent from a daemon older than them).
    public var audio: AudioSettings?
    public var playlist: PlaylistMode?
    /// Why the background player can show no pictures (no display where it
    /// runs: a video plays its sound only); nil when windows open.
    public var display: String?
    /// The current item's file: duration, tags and format, once probed.
    public var media: MediaDetails?
    /// The sleep timer, when one is set.
    public var sleep: SleepStatus?

    public init(
        current: ItemStatus?, items: [ItemStatus], feed: String, pid: Int32, version: String,
        audio: AudioSettings? = nil, playlist: PlaylistMode? = nil, display: String? = nil, media: MediaDetails? = nil
    ) {
        self.media = media
        self.display = display
        self.current = current
        self.items = items
        self.feed = feed
        self.pid = pid
        self.version = version
        self.audio = audio
        self.playlist = playlist
    }
}

/// `stop`: the stopped item's status, or `{}` when nothing was active.
public struct StopResult: Codable, Sendable, Equatable {
    public var stopped: ItemStatus?

    public init(stopped: ItemStatus?) {
        self.stopped = stopped
    }

    private enum Keys: String, CodingKey { case item }

    public init(from decoder: any Decoder) throws {
        let isEmpty = !(try decoder.container(keyedBy: Keys.self).contains(.item))
        stopped = isEmpty ? nil : try ItemStatus(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        if let stopped {
            try stopped.encode(to: encoder)
        } else {
            _ = encoder.container(keyedBy: Keys.self)
        }
    }
}

/// An empty result (`observe`, `quit`).
public struct EmptyResult: Codable, Sendable, Equatable {
    public init() {}
}

/// A reply: `{"id":7,"ok":true,"result":{...}}` or `{"id":7,"ok":false,"error":{...}}`.
public struct ControlReply<Result: Codable & Sendable>: Codable, Sendable {
    public var id: Int?
    public var ok: Bool
    public var result: Result?
    public var error: CommandError?

    public static func success(_ id: Int?, _ result: Result) -> ControlReply {
        ControlReply(id: id, ok: true, result: result, error: nil)
    }

    public static func failure(_ id: Int?, _ error: CommandError) -> ControlReply {
        ControlReply(id: id, ok: false, result: nil, error: error)
    }

    // `id` is written even when null, so every reply has the same shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(ok, forKey: .ok)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// JSON for the wire: the model's one encoding (`ModelJSON`), a line each.
public enum ControlJSON {
    /// The value as one line, newline included.
    public static func line(_ value: some Encodable) -> [UInt8] {
        var bytes = (try? [UInt8](ModelJSON.encoder().encode(value))) ?? Array(#"{"id":null,"ok":false,"error":{"code":"bad-request","message":"unencodable reply"}}"#.utf8)
        bytes.append(0x0A)
        return bytes
    }
}
