import Foundation
import MediaFeed
import Testing

/// The JSON writer against Foundation's JSONEncoder (`.prettyPrinted`,
/// `.sortedKeys`, slashes unescaped), byte for byte: nesting, commas after
/// containers, escapes, whole and fractional numbers, null, a one-letter
/// key. (An empty container is `[]` here, as `list --json` has always
/// written it; Foundation on Linux breaks it over two lines.)
@Suite struct JSONWriterTests {
    struct Inner: Encodable {
        var a: [Int]
        var tags: [String]
        var z: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(a, forKey: .a)
            try container.encode(tags, forKey: .tags)
            try container.encode(z, forKey: .z)
        }

        enum CodingKeys: String, CodingKey { case a, tags, z }
    }

    struct Document: Encodable {
        var b: Bool
        var items: [Inner]
        var n: Double
        var text: String
        var x: Int
        var y: Double?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(b, forKey: .b)
            try container.encode(items, forKey: .items)
            try container.encode(n, forKey: .n)
            try container.encode(text, forKey: .text)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
        }

        enum CodingKeys: String, CodingKey { case b, items, n, text, x, y }
    }

    static let document = Document(
        b: true, items: [Inner(a: [1, -20, 300], tags: ["t"], z: nil), Inner(a: [7], tags: ["u", "v"], z: "q\"uote\\ and\ttab\n/ é \u{1}")],
        n: 0.16, text: "Rain & Snow", x: Int.min, y: nil
    )

    static func written(pretty: Bool) -> [UInt8] {
        var json = JSONWriter(pretty: pretty, reserving: 8)
        json.beginObject()
        json.key(.init("b")); json.bool(true)
        json.key(.init("items")); json.beginArray()
        for inner in document.items {
            json.beginObject()
            json.key(.init("a")); json.beginArray()
            for value in inner.a { json.number(value) }
            json.endArray()
            json.key(.init("tags")); json.beginArray()
            for tag in inner.tags { json.string(tag) }
            json.endArray()
            json.key(.init("z")); json.string(inner.z)
            json.endObject()
        }
        json.endArray()
        json.key(.init("n")); json.number(document.n)
        json.key(.init("text")); json.string(document.text)
        json.key(.init("x")); json.number(document.x)
        json.key(.init("y")); json.number(document.y)
        json.endObject()
        return json.bytes
    }

    @Test(arguments: [true, false])
    func matchesJSONEncoder(pretty: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let expected = Array(try encoder.encode(Self.document))
        let ours = Self.written(pretty: pretty)
        #expect(ours == expected, "\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: expected, as: UTF8.self))")
    }

    @Test func emptyContainersStayOnTheirLine() {
        var json = JSONWriter()
        json.beginObject()
        json.key(.init("a")); json.beginArray(); json.endArray()
        json.key(.init("o")); json.beginObject(); json.endObject()
        json.endObject()
        #expect(String(decoding: json.bytes, as: UTF8.self) == "{\n  \"a\" : [],\n  \"o\" : {}\n}")
    }
}
