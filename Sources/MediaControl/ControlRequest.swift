import Foundation
import MediaFeed
import MediaModel

// The JSON-lines protocol of the background player (docs/PROTOCOL.md).
// One JSON object per line each way: requests carry an `id` that their reply
// repeats; events carry `event` instead.

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
    /// `toggle`: a file (an absolute path) or an http(s) URL to play by
    /// itself, instead of an item: the feed's item with that media, else
    /// one added after the feed's.
    public var source: String?
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
            // JSON whose number fits no field of its type (`"step": 1e308`):
            // Foundation calls that "not valid JSON" too; the field is named.
            if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] {
                for key in ["expires", "id", "level", "step"] {
                    guard let number = object[key] as? NSNumber else { continue }
                    let value = number.doubleValue
                    if !(value.rounded() == value && abs(value) < 9.2e18) { return "\"\(key)\" is out of range (or not a whole number)" }
                }
            }
            return "request is not valid JSON"
        }
    }
}
