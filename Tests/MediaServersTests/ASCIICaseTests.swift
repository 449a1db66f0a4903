@testable import MediaServers
import Testing

/// Schemes, host names, UPnP classes and MIME types compared with only
/// ASCII letters folded (RFC 3986, RFC 4343): as Unicode's lowercasing
/// compared them for ASCII text, and never equal for other bytes.
@Suite struct ASCIICaseTests {
    @Test(arguments: [
        ("HTTP", "http", true), ("hTtPs", "https", true), ("http", "https", false), ("", "", true),
        ("Music.Local", "music.local", true), ("music.locaL", "music.local.", false),
        // Only ASCII folds: "İ" and "ı" are not "i"; "@" and "`" (next to the letters) stay themselves.
        ("İ", "i", false), ("ı", "i", false), ("@", "`", false), ("[", "{", false),
    ])
    func equality(_ text: String, _ other: String, _ equal: Bool) {
        #expect(text.equalsIgnoringASCIICase(other) == equal)
        #expect(other.equalsIgnoringASCIICase(text) == equal)
    }

    @Test func prefixes() {
        #expect("object.item.audioItem.musicTrack".hasLowercasePrefixIgnoringASCIICase("object.item.audioitem"))
        #expect("OBJECT.ITEM.VIDEOITEM".hasLowercasePrefixIgnoringASCIICase("object.item.videoitem"))
        #expect("Audio/MPEG".hasLowercasePrefixIgnoringASCIICase("audio/"))
        #expect("image/png".hasLowercasePrefixIgnoringASCIICase(""))
        #expect(!"audio".hasLowercasePrefixIgnoringASCIICase("audio/"))
        #expect(!"".hasLowercasePrefixIgnoringASCIICase("audio/"))
        #expect(!"object.item.imageİtem".hasLowercasePrefixIgnoringASCIICase("object.item.imageitem"))
    }

    /// All-number ids take a prefix: ASCII digits by their bytes, other
    /// numbers as Unicode says (as `Character.isNumber` alone did).
    @Test(arguments: [("1234", true), ("", true), ("64$1", false), ("٣٤", true), ("12a", false), ("½", true), ("é1", false)])
    func numericIDs(_ id: String, _ numeric: Bool) {
        #expect(id.isAllNumbers == numeric)
        #expect(id.isAllNumbers == id.allSatisfy(\.isNumber))
    }
}
