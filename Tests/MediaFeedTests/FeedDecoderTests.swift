import MediaModel
import Foundation
import Testing

@testable import MediaFeed

private func decode(_ text: String, origin: FeedOrigin = .file(path: "/feeds/media.json")) throws -> Feed {
    try FeedDecoder.decode(Array(text.utf8), origin: origin)
}

private func decodeError(_ text: String) -> FeedError? {
    do {
        _ = try FeedDecoder.decode(Array(text.utf8), origin: .unknown)
        return nil
    } catch {
        return error
    }
}

@Suite struct GoodFeeds {
    @Test func objectWithTitleAndAllKinds() throws {
        let feed = try decode("""
            {"title": "Showcase", "items": [
              {"type": 0, "id": "pic", "title": "A picture", "url": "https://example.org/a.jpg"},
              {"type": 1, "title": "A song", "url": "https://example.org/music/song.mp3", "description": "Nice"},
              {"type": 2, "title": "A film", "url": "http://example.org/film.mp4", "thumbnail": "https://example.org/film.jpg",
               "unknown": {"nested": [1, 2, 3]}}
            ]}
            """)
        #expect(feed.title == "Showcase")
        #expect(feed.items.map(\.kind) == [.image, .audio, .video])
        #expect(feed.items.filter { !$0.isValid }.isEmpty)
        #expect(feed.items.map(\.position) == [1, 2, 3])
        #expect(feed.items[0].id == "pic")
        #expect(feed.items[1].id == "song")  // derived from the URL's file name
        #expect(feed.items[1].description == "Nice")
        #expect(feed.items[2].thumbnail == .remote(URL(string: "https://example.org/film.jpg")!))
        #expect(feed.items[2].source == .remote(URL(string: "http://example.org/film.mp4")!))
    }

    @Test func bareArrayTakesTitleFromFileName() throws {
        let feed = try decode(#"[{"type": 1, "url": "https://example.org/Some_Song.mp3"}]"#, origin: .file(path: "/x/my-list.json"))
        #expect(feed.title == "my-list.json")
        #expect(feed.items.count == 1)
        #expect(feed.items[0].title == "Some Song")  // derived title
        #expect(feed.items[0].id == "some-song")
    }

    @Test func emptyFeeds() throws {
        #expect(try decode(#"{"title": "Nothing", "items": []}"#).items.isEmpty)
        #expect(try decode("[]").items.isEmpty)
        #expect(try decode(" \n [ ] \n").items.isEmpty)
    }

    @Test func relativePathsResolveAgainstTheFeedFolder() throws {
        let feed = try decode("""
            [{"type": 0, "url": "pictures/cat.png"},
             {"type": 0, "url": "../shared/dog.png"},
             {"type": 0, "url": "/abs/bird.png"},
             {"type": 0, "url": "file:///abs/fish%20tank.png"},
             {"type": 1, "url": "song.mp3", "thumbnail": "covers/song.jpg"}]
            """, origin: .file(path: "/home/ann/feeds/media.json"))
        #expect(feed.items.map(\.source) == [
            .file("/home/ann/feeds/pictures/cat.png"),
            .file("/home/ann/shared/dog.png"),
            .file("/abs/bird.png"),
            .file("/abs/fish tank.png"),
            .file("/home/ann/feeds/song.mp3"),
        ])
        #expect(feed.items[4].thumbnail == .file("/home/ann/feeds/covers/song.jpg"))
    }

    @Test func relativeURLsInARemoteFeedResolveAgainstItsURL() throws {
        let feed = try decode(#"[{"type": 2, "url": "media/clip.mp4"}, {"type": 2, "url": "/top.mp4"}]"#,
                              origin: .remote(URL(string: "https://example.org/feeds/list.json")!))
        #expect(feed.items[0].source == .remote(URL(string: "https://example.org/feeds/media/clip.mp4")!))
        #expect(feed.items[1].source == .remote(URL(string: "https://example.org/top.mp4")!))
    }

    @Test func numericIDsAndIntegralTypes() throws {
        let feed = try decode(#"[{"type": 1.0, "id": 42, "url": "https://e.org/a.mp3"}, {"type": 2e0, "url": "https://e.org/b.mp4"}]"#)
        #expect(feed.items[0].kind == .audio)
        #expect(feed.items[0].id == "42")
        #expect(feed.items[1].kind == .video)
    }

    @Test func derivedIDsAreStableAndUnique() throws {
        let text = """
            [{"type": 1, "url": "https://a.org/song.mp3"},
             {"type": 1, "url": "https://b.org/song.mp3"},
             {"type": 1, "id": "song", "url": "https://c.org/other.mp3"},
             {"type": 1, "url": "https://d.org/2024.mp3"},
             {"type": 1, "url": "https://d.org/"}]
            """
        let first = try decode(text)
        let second = try decode(text)
        #expect(first.items.map(\.id) == second.items.map(\.id))
        #expect(Set(first.items.map(\.id)).count == 5)
        #expect(first.items[2].id == "song")  // the explicit id wins over derived ones
        #expect(first.items[0].id.hasPrefix("song-"))
        #expect(first.items[3].id == "item-2024")  // never all digits: numbers are positions
        #expect(first.items.filter { !$0.isValid }.isEmpty)
    }

    @Test func lookupByPositionOrID() throws {
        let feed = try decode(#"[{"type": 1, "id": "a", "url": "https://e.org/a.mp3"}, {"type": 1, "id": "b", "url": "https://e.org/b.mp3"}]"#)
        #expect(feed.item(matching: "2")?.id == "b")
        #expect(feed.item(matching: "a")?.position == 1)
        #expect(feed.item(matching: "3") == nil)
        #expect(feed.item(matching: "0") == nil)
        #expect(feed.item(matching: "zzz") == nil)
        // Numbers at the ends of Int's range are no item, not an overflow.
        #expect(feed.item(matching: String(Int.min)) == nil)
        #expect(feed.item(matching: String(Int.max)) == nil)
        #expect(feed.item(matching: "-1") == nil)
    }

    /// Line and column are worked out from byte offsets only for what needs
    /// them: still exact on a one-line (minified) feed and a pretty one.
    @Test func recordLocationsOnOneLineAndManyLines() throws {
        let record = #"{"type": 1, "title": "é", "url": "https://e.org/a.mp3"}"#
        let minified = try decode("[" + Array(repeating: record, count: 3).joined(separator: ",") + "]")
        let width = record.count + 1  // characters, not bytes: é is one
        #expect(minified.items.map(\.location) == (0..<3).map { SourcePosition(line: 1, column: 2 + $0 * width) })
        let pretty = try decode("[\n  " + Array(repeating: record, count: 3).joined(separator: ",\n  ") + "\n]")
        #expect(pretty.items.map(\.location) == (2...4).map { SourcePosition(line: $0, column: 3) })
        let broken = decodeError("[" + record + "," + record + ",{\"type\": 1 \"url\": 2}]")
        #expect(broken?.position == SourcePosition(line: 1, column: 2 + 2 * width + 11))
    }

    @Test func unicodeAndEscapes() throws {
        let feed = try decode(#"""
            ﻿[{"type": 0, "title": "Caf\u00e9 \ud83d\ude00 \"quoted\" \\ \/ tab\there", "url": "https://e.org/a.png"}]
            """#)
        #expect(feed.items[0].title == "Café 😀 \"quoted\" \\ / tab\there")
    }

    @Test func theBundledFeedIsAShowcase() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("media.json").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let feed = try FeedDecoder.decode(bytes, origin: .file(path: path))
        #expect(feed.items.count >= 15)
        #expect(feed.items.filter { !$0.isValid }.isEmpty)
        for kind in MediaKind.allCases {
            #expect(feed.items.filter { $0.kind == kind }.count >= 5, "at least 5 of \(kind)")
        }
        #expect(feed.items.allSatisfy { $0.description != nil })
        // It begins with media that ship beside it (played offline), then the internet's.
        let local = feed.items.prefix { if case .file? = $0.source { return true } else { return false } }
        #expect(Set(local.compactMap(\.kind)) == Set(MediaKind.allCases), "a tune, a video and pictures ship")
        #expect(local.allSatisfy { item in
            guard case let .file(file)? = item.source else { return false }
            return FileManager.default.fileExists(atPath: file) && file.hasPrefix(root.path + "/Media/")
        })
        #expect(feed.items.dropFirst(local.count).allSatisfy { $0.source?.isRemote == true })
        let shipped = try FileManager.default.contentsOfDirectory(atPath: root.path + "/Media").reduce(0) { sum, name in
            sum + ((try FileManager.default.attributesOfItem(atPath: root.path + "/Media/" + name)[.size] as? Int) ?? 0)
        }
        #expect(shipped < 1_000_000, "the shipped media stay under 1 MB together")
    }
}

@Suite struct BadRecords {
    /// Decodes one bad record between two good ones and returns its reason.
    private func reason(_ record: String, origin: FeedOrigin = .file(path: "/f/media.json")) throws -> String? {
        let feed = try decode("""
            {"items": [
              {"type": 1, "url": "https://e.org/first.mp3"},
              \(record),
              {"type": 2, "url": "https://e.org/last.mp4"}
            ]}
            """, origin: origin)
        #expect(feed.items.count == 3)
        #expect(feed.items[0].isValid && feed.items[2].isValid, "good records survive a bad one")
        #expect(feed.items[1].source == nil || feed.items[1].isValid)
        #expect(feed.items[1].location.line == 3)
        return feed.items[1].invalidReason
    }

    @Test func unknownType() throws {
        #expect(try reason(#"{"type": 7, "url": "https://e.org/x"}"#) == "unknown type 7 (expected 0 image, 1 audio, 2 video)")
        #expect(try reason(#"{"type": -1, "url": "https://e.org/x"}"#)?.hasPrefix("unknown type -1") == true)
        #expect(try reason(#"{"type": 1.5, "url": "https://e.org/x"}"#)?.hasPrefix("unknown type 1.5") == true)
        // Out of Int's range: these trapped in the conversion (SIGILL).
        for huge in ["1e999", "-1e999", "9223372036854775808", "-1e19", "1e300"] {
            #expect(try reason(#"{"type": \#(huge), "url": "https://e.org/x"}"#) == "unknown type \(huge) (expected 0 image, 1 audio, 2 video)")
        }
        #expect(try reason(#"{"type": 2.0, "url": "https://e.org/x"}"#) == nil, "an integral number is still a type")
    }

    @Test func missingType() throws {
        #expect(try reason(#"{"url": "https://e.org/x"}"#) == #"missing "type" ("image", "audio" or "video")"#)
        #expect(try reason(#"{"type": null, "url": "https://e.org/x"}"#) == #"missing "type" ("image", "audio" or "video")"#)
    }

    /// "audio" as well as 1 (and "1"): a name is what people write.
    @Test func typeAsAString() throws {
        let feed = try FeedDecoder.decode(Array(#"[{"type": "audio", "url": "https://e.org/a"}, {"type": "Video", "url": "https://e.org/b"}, {"type": "image", "url": "https://e.org/c"}, {"type": "1", "url": "https://e.org/d"}]"#.utf8))
        #expect(feed.items.map(\.kind) == [.audio, .video, .image, .audio])
        #expect(try reason(#"{"type": "song", "url": "https://e.org/x"}"#) == #"unknown type "song" (expected "image", "audio" or "video", or 0, 1, 2)"#)
        #expect(try reason(#"{"type": true, "url": "https://e.org/x"}"#)?.contains("not a boolean") == true)
    }

    @Test func missingOrUnusableURL() throws {
        #expect(try reason(#"{"type": 1}"#) == #"missing "url""#)
        #expect(try reason(#"{"type": 1, "url": ""}"#) == "url: empty")
        #expect(try reason(#"{"type": 1, "url": 5}"#) == #""url" must be a string, not a number"#)
        #expect(try reason(#"{"type": 1, "url": "https://"}"#)?.contains("not a usable https URL") == true)
        #expect(try reason(#"{"type": 1, "url": "http://exa mple.org/a b"}"#)?.hasPrefix("url:") == true)
    }

    /// The host check reads the text itself; Foundation's parsed URL is the oracle.
    @Test func aHostIsFoundAsFoundationFindsIt() {
        let samples = [
            "https://e.org", "https://e.org/a.mp3", "http://e.org:8080/x?y#z", "https://user:pw@e.org/", "https://[::1]/a",
            "https://[::1]:8443/a", "http://127.0.0.1:9/", "https://", "https:///path", "https://:80/", "https://user@/x",
            "http:/e.org/a", "http:e.org", "https://?q", "https://#f", "HTTPS://E.ORG/A",
        ]
        for text in samples {
            let foundation = URL(string: text).flatMap(\.host).map { !$0.isEmpty } ?? false
            let ours = FeedDecoder.hasAuthority(text) && URL(string: text) != nil
            #expect(ours == foundation, "\(text)")
        }
    }

    @Test func unsupportedScheme() throws {
        #expect(try reason(#"{"type": 1, "url": "ftp://e.org/a.mp3"}"#) == #"url: unsupported scheme "ftp" (use http, https or file)"#)
        #expect(try reason(#"{"type": 1, "url": "rtsp://e.org/live"}"#)?.contains("unsupported scheme \"rtsp\"") == true)
        #expect(try reason(#"{"type": 1, "url": "data:audio/mp3;base64,AAAA"}"#)?.contains("unsupported scheme \"data\"") == true)
    }

    @Test func fileURLsInARemoteFeedAreRefused() throws {
        let origin = FeedOrigin.remote(URL(string: "https://e.org/feed.json")!)
        #expect(try reason(#"{"type": 1, "url": "file:///etc/passwd"}"#, origin: origin)?.contains("cannot point at local files") == true)
    }

    @Test func duplicateID() throws {
        let feed = try decode("""
            [{"type": 1, "id": "same", "url": "https://e.org/a.mp3"},
             {"type": 1, "id": "same", "url": "https://e.org/b.mp3"},
             {"type": 1, "url": "https://e.org/c.mp3"}]
            """)
        #expect(feed.items[0].isValid)
        #expect(feed.items[1].invalidReason == #"duplicate id "same" (item 1 has it too)"#)
        #expect(feed.items[1].id != "same")  // still addressable, by a derived id
        #expect(feed.items[2].isValid)
    }

    @Test func recordThatIsNotAnObject() throws {
        #expect(try reason(#""just a string""#) == "the record is a string, not an object")
        #expect(try reason("[1, 2]") == "the record is an array, not an object")
        #expect(try reason("null") == "the record is null, not an object")
    }

    @Test func wrongFieldTypes() throws {
        #expect(try reason(#"{"type": 1, "url": "https://e.org/a", "title": 3}"#) == #""title" must be a string, not a number"#)
        #expect(try reason(#"{"type": 1, "url": "https://e.org/a", "id": {}}"#) == #""id" must be a string or a number, not an object"#)
        #expect(try reason(#"{"type": 1, "url": "https://e.org/a", "id": "  "}"#) == #""id" is empty"#)
        #expect(try reason(#"{"type": 1, "url": "https://e.org/a", "description": []}"#) == #""description" must be a string, not an array"#)
        #expect(try reason(#"{"type": 2, "url": "https://e.org/a", "thumbnail": "gopher://x"}"#) == #"thumbnail: unsupported scheme "gopher" (use http, https or file)"#)
    }

    @Test func invalidItemsKeepWhatIsKnown() throws {
        let feed = try decode(#"[{"type": 9, "title": "Keep my title", "url": "https://e.org/a.mp3"}]"#)
        #expect(feed.items[0].title == "Keep my title")
        #expect(feed.items[0].kind == nil)
        #expect(feed.items[0].source == nil)  // an invalid item is never fetched
        #expect(!feed.items[0].isValid)
    }
}

@Suite struct MalformedFeeds {
    @Test func truncatedFile() {
        let error = decodeError("{\"items\": [\n  {\"type\": 1,\n")
        #expect(error?.position == SourcePosition(line: 3, column: 1))
        #expect(error?.message.contains("end of file") == true)
    }

    @Test func missingComma() {
        let error = decodeError("[\n  {\"type\": 1 \"url\": \"x\"}\n]")
        #expect(error?.position == SourcePosition(line: 2, column: 14))
        #expect(error?.message == "unexpected '\"'; expected ',' or '}'")
    }

    @Test func columnsCountCharactersNotBytes() {
        let error = decodeError("[{\"title\": \"héllo wörld\" x}]")
        #expect(error?.position == SourcePosition(line: 1, column: 26))
    }

    @Test func trailingComma() {
        #expect(decodeError("[1, 2,]")?.message == "trailing comma before ']'")
        #expect(decodeError("{\"items\": [],}")?.message == "trailing comma before '}'")
    }

    @Test func emptyAndGarbage() {
        #expect(decodeError("")?.message == "the file is empty; expected a JSON object or array")
        #expect(decodeError("   \n  ")?.position == SourcePosition(line: 2, column: 3))
        #expect(decodeError("hello")?.message == #"not a feed mediaplay reads (it starts with "hello"); mediaplay reads JSON (its own or JSON Feed), RSS, Atom, M3U and PLS, and folders of media"#)
        #expect(decodeError("\u{01}\u{02}")?.message.contains(#"it starts with "\x01\x02""#) == true)
        #expect(decodeError("[] []")?.message.contains("after the end of the JSON document") == true)
    }

    @Test func badStringsAndNumbers() {
        #expect(decodeError("[\"a\nb\"]")?.message.contains("line break inside a string") == true)
        #expect(decodeError(#"["\q"]"#)?.message == #"invalid escape '\q' in a string"#)
        #expect(decodeError(#"["\ud800"]"#)?.message.contains("surrogate") == true)
        #expect(decodeError("[01]")?.message == "invalid number: leading zero")
        #expect(decodeError("[1.]")?.message.contains("after '.'") == true)
        #expect(decodeError("[tru]") != nil)
    }

    @Test func wrongShape() {
        #expect(decodeError(#"{"title": "x"}"#)?.message == #"the feed object has no "items" array"#)
        #expect(decodeError(#"{"items": {}}"#)?.message == #"the feed's "items" must be an array, not an object"#)
        #expect(decodeError(#"{"items": [], "title": 5}"#)?.message == #"the feed's "title" must be a string, not a number"#)
        #expect(decodeError(#""a string""#)?.message.contains("not a string") == true)
    }

    /// A feed of millions of records stops at the cap, not at the memory's end
    /// (a 15 MB file of `{},` lines grew past 10 GB).
    @Test func tooManyRecordsStopTheParse() {
        let limit = FeedDecoder.maximumItems
        let text = "[" + String(repeating: "{},", count: limit) + "{}]"
        let error = decodeError(text)
        #expect(error?.message == "more than \(limit) items in an array; mediaplay reads feeds of at most \(limit) items (split the feed)")
        #expect(error?.position == SourcePosition(line: 1, column: 2 + 3 * limit))
        let atTheCap = "[" + String(repeating: "{},", count: limit - 1) + "{}]"
        #expect(decodeError(atTheCap) == nil, "exactly the cap still reads")
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(decodeError(deep)?.message.contains("nesting deeper") == true)
    }
}
