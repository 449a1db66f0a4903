import Foundation

/// The `list --json` schema as docs/FEED.md describes it, written out here on
/// purpose rather than shared with the program, so the test checks the contract.
public struct ListJSON: Codable, Equatable, Sendable {
    public struct FeedInfo: Codable, Equatable, Sendable {
        public var title: String
        public var source: String
    }

    public struct Item: Codable, Equatable, Sendable {
        public var position: Int
        public var id: String
        public var kind: String?
        public var title: String
        public var url: String?
        public var description: String?
        public var thumbnail: String?
        public var state: String
        public var size: Int64?
        public var received: Int64?
        public var error: String?
        public var line: Int
        public var playback: Playback?
        public var media: Media?
        public var duration: Double?
        public var published: String?
        public var played: Bool?
        public var new: Bool?
        /// Where the item was left part way, in seconds (null: at the top).
        public var resumeAt: Double?
    }

    public struct Media: Codable, Equatable, Sendable {
        public var duration: Double?
        public var title: String?
        public var artist: String?
        public var album: String?
        public var codec: String?
        public var width: Int?
        public var height: Int?
        public var sampleRate: Int?
    }

    public struct Playback: Codable, Equatable, Sendable {
        public var state: String
        public var position: Double
        public var duration: Double?
        public var progress: Double?
    }

    public var schema: String
    public var feed: FeedInfo
    public var items: [Item]
}
