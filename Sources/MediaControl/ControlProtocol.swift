import Foundation
import MediaFeed
import MediaModel

// The JSON-lines protocol of the background player (docs/PROTOCOL.md).
// One JSON object per line each way: requests carry an `id` that their reply
// repeats; events carry `event` instead.

/// Where the background player listens, and its other files, for a runtime dir.
public struct ControlPaths: Sendable {
    public let runtimeDirectory: String

    public init(runtimeDirectory: String) {
        self.runtimeDirectory = runtimeDirectory
    }

    public var socket: String { runtimeDirectory + "/mediaplay.sock" }
    /// Held (flock) by the running daemon: one per runtime dir.
    public var lock: String { runtimeDirectory + "/mediaplay.lock" }
}

/// How long a client waits for the background player before it says that
/// it does not answer: for a connection, and for each line of a reply (a
/// long toggle sends its progress in between). `MEDIAPLAY_CLIENT_TIMEOUT`
/// (seconds) changes it.
public enum ClientTimeout {
    public static let standard: Double = 10

    public static func seconds(_ environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> Double {
        guard let text = environment("MEDIAPLAY_CLIENT_TIMEOUT"), let value = Double(text), value.isFinite, value > 0 else { return standard }
        return min(value, 3600)
    }

    /// Now plus `seconds`, as a request's `expires`.
    public static func expiry(after seconds: Double) -> Int64 {
        Int64((Date().timeIntervalSince1970 + seconds) * 1000)
    }
}

/// The longest request line the daemon reads (a toggle is ~40 bytes).
public let maximumRequestLength = 64 * 1024

/// A request, as sent by a client.
public struct ControlRequest: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable, CaseIterable {
        case toggle, status, seek, stop, volume, mute, speed, next, prev, playlist, observe, quit
        /// Any control, as its command line (`"command": "speed *1.1"`).
        case command
    }

    public var id: Int?
    public var cmd: String
    /// The item: its number in the feed, or its id.
    public var item: ItemSelector?
    /// `seek`: the time to go to; or `by`, seconds to move (back when negative).
    public var seconds: Double?
    public var by: Double?
    /// `seek`: a share of the item's length, 0–100.
    public var percent: Double?
    /// `toggle`: false replies at once instead of after any download.
    public var wait: Bool?
    /// `volume`: the level to set, 0–150; or `step`, a change (+5, -5).
    public var level: Int?
    public var step: Int?
    /// `mute`: true mutes, false unmutes, absent toggles.
    public var on: Bool?
    /// `speed`: the factor to set, 0.25–4 (absent: just read); or
    /// `factor`, what to multiply the speed by.
    public var value: Double?
    public var factor: Double?
    /// `command`: a control as typed after `mediaplay` ("seek +20"), read
    /// by the daemon (so a mistake gets its own one-line reason).
    public var command: String?
    /// `playlist`: the modes to change (absent ones stay).
    public var autoplay: Bool?
    public var `repeat`: PlaylistMode.Repeat?
    public var shuffle: Bool?
    /// The feed the client means; the daemon refuses a request for another.
    public var feed: String?
    /// When the client stops waiting (Unix time in milliseconds): a request
    /// read after it, from a client that gave up, is not carried out.
    public var expires: Int64?

    public init(
        id: Int?, cmd: Command, item: ItemSelector? = nil, seconds: Double? = nil, wait: Bool? = nil, feed: String? = nil,
        level: Int? = nil, step: Int? = nil, on: Bool? = nil, by: Double? = nil, value: Double? = nil
    ) {
        self.id = id
        self.cmd = cmd.rawValue
        self.item = item
        self.seconds = seconds
        self.wait = wait
        self.feed = feed
        self.level = level
        self.step = step
        self.on = on
        self.by = by
        self.value = value
    }
}

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

extension ControlRequest {
    /// A line that is not a request: what it lacks, and its id when at
    /// least that much could be read (the reply echoes it).
    public struct Malformed: Error, Sendable, Equatable {
        public var id: Int?
        public var message: String
    }

    private struct RequestID: Decodable { var id: Int? }

    /// Decodes one request line (the daemon's request decoder, fuzzed by
    /// `make fuzz`).
    public static func decode(line bytes: [UInt8]) -> Result<ControlRequest, Malformed> {
        do {
            return .success(try JSONDecoder().decode(ControlRequest.self, from: Data(bytes)))
        } catch {
            let id = (try? JSONDecoder().decode(RequestID.self, from: Data(bytes)))?.id
            return .failure(Malformed(id: id, message: describe(error, bytes)))
        }
    }

    private static func describe(_ error: any Error, _ bytes: [UInt8]) -> String {
        if String(validating: bytes, as: UTF8.self) == nil { return "request is not UTF-8 JSON" }
        switch error {
        case let DecodingError.keyNotFound(key, _):
            return "request lacks \"\(key.stringValue)\""
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "request is not a JSON object" : "\"\(path)\" has the wrong type"
        default:
            return "request is not valid JSON"
        }
    }
}
