import MediaConfig
import MediaModel
import Testing

/// Control characters in config.toml (issue #41, item 5): a NUL in a key
/// crashed every command in TOMLKit's iterator, and NULs in values were
/// taken. Each is a mistake at the line and column of the character.
@Suite struct ConfigControlCharacterTests {
    static func problem(_ text: String) -> ConfigError? {
        do {
            _ = try Config.parse(text, path: "/home/me/.config/mediaplay/config.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        // An escape in a quoted key, the crash of the issue.
        (#"[keys]\#n"a\u0000" = "quit"\#n"#, 2, 3, "U+0000"),
        (#"[feeds]\#n"a\u0000" = "https://example.org/rss"\#n"#, 2, 3, "U+0000"),
        // Raw bytes: in a bare key, in a value, in a comment.
        ("[keys]\na\u{0} = \"quit\"\n", 2, 2, "U+0000"),
        ("[feed]\ndefault = \"a\u{0}b\"\n", 2, 13, "U+0000"),
        ("[playback]\nvolume = 80 # \u{7}\n", 2, 15, "U+0007"),
        ("[feed]\ndefault = \"a\u{7F}\"\n", 2, 13, "U+007F"),
        ("[feed]\r\ndefault = \"a\rb\"\r\n", 2, 13, "U+000D"),
        // Escapes of every form in values, after an escaped quote.
        (#"[feed]\#ndefault = "a\"\u001B""#, 2, 15, "U+001B"),
        (#"[feed]\#ndefault = "a\U0000007F""#, 2, 13, "U+007F"),
        (#"[feed]\#ndefault = "a\nb""#, 2, 13, "U+000A"),
        (#"[keys]\#nx = "seek +20\r""#, 2, 14, "U+000D"),
        (#"[feed]\#ndefault = """a""b\u0000""""#, 2, 18, "U+0000"),
        // A line break kept in a multi-line string.
        ("[feed]\ndefault = \"\"\"\nab\ncd\"\"\"\n", 3, 3, "line break"),
        ("[feed]\ndefault = '''\nab\ncd'''\n", 3, 3, "line break"),
    ])
    func aControlCharacterIsAMistakeWhereItStands(_ example: (text: String, line: Int, column: Int, named: String)) {
        let error = Self.problem(example.text)
        #expect(error?.line == example.line && error?.column == example.column, "\(String(describing: error))")
        #expect(error?.path == "config.toml" && error?.message.contains(example.named) == true, "\(String(describing: error))")
    }

    @Test func tabsLineEndsAndWhatTOMLTrimsAreFine() throws {
        let config = try Config.parse("[feed]\r\ndefault = \"a\tb\\tc\"\r\n[cache]\nfolder = '''\n/tmp/x'''\n", path: "config.toml")
        #expect(config.feed == "a\tb\tc" && config.cacheFolder == "/tmp/x")
        let continued = try Config.parse("[feed]\ndefault = \"\"\"\n  x \\\n   y\"\"\"\n", path: "config.toml")
        #expect(continued.feed == "  x y")
        // Text that only looks like an escape: a literal string, a comment.
        let literal = try Config.parse("[feed]\ndefault = 'C:\\u0000'  # \\u0000\n", path: "config.toml")
        #expect(literal.feed == "C:\\u0000")
    }

    /// Every key and value read the same way: a file of many keys whose
    /// names differ only past where a NUL would have cut them.
    @Test func everyKeyIsFoundAgain() throws {
        let config = try Config.parse("[keys]\n\"x\" = \"next\"\n\"y\" = \"prev\"\n[feeds]\na-1 = \"/a\"\na-2 = \"/b\"\n", path: "config.toml")
        #expect(config.feeds == ["a-1": "/a", "a-2": "/b"] && config.changedKeys == ["x", "y"])
    }

    /// The imported feeds' file: one `name = "URL"` a line, checked the same way.
    @Test func aFeedsFileLineIsCheckedToo() throws {
        #expect(try TOMLText.assignment(#"news = "https://example.org/rss" # mine"#, number: 1)! == ("news", "https://example.org/rss"))
        #expect(try TOMLText.assignment(#"  "a b" = 'x\y'"#, number: 1)! == ("a b", "x\\y"))
        #expect(try TOMLText.assignment("  # a comment", number: 1) == nil)
        for (line, column, named) in [(#"a = "x\u0000""#, 7, "U+0000"), ("a = \"x\u{1B}\"", 7, "U+001B"), (#"a = "\n""#, 6, "U+000A"), (#"a = "x" y"#, 9, "text after")] {
            #expect(throws: TOMLText.Problem.self) { try TOMLText.assignment(Substring(line), number: 4) }
            do {
                _ = try TOMLText.assignment(Substring(line), number: 4)
            } catch {
                #expect(error.line == 4 && error.column == column && error.message.contains(named), "\(line): \(error)")
            }
        }
    }
}

/// `[network] timeout`: whole seconds in range, else exit 78 naming the line.
@Suite struct NetworkConfigTests {
    @Test func aTimeoutIsReadInRange() throws {
        #expect(try Config.parse("[network]\ntimeout = 5\n", path: "config.toml").networkTimeout == 5)
        #expect(try Config.parse("", path: "config.toml").networkTimeout == nil)
        for bad in ["0", "3601", "\"30\"", "2.5"] {
            #expect(throws: ConfigError.self) { try Config.parse("[network]\ntimeout = \(bad)\n", path: "config.toml") }
        }
    }
}
