import MediaMPD
import Testing

@Suite struct MPDRequestTests {
    private func words(_ text: String) throws -> [String] { try MPDRequest.words(Array(text.utf8)) }

    @Test func plainWordsSplitOnSpacesAndTabs() throws {
        #expect(try words("play 2") == ["play", "2"])
        #expect(try words("  seekcur\t+30  ") == ["seekcur", "+30"])
        #expect(try words("") == [])
    }

    @Test func quotedWordsKeepSpacesAndEscapes() throws {
        #expect(try words(#"find artist "Daft Punk""#) == ["find", "artist", "Daft Punk"])
        #expect(try words(#"add "a \"b\" \\ c""#) == ["add", #"a "b" \ c"#])
        #expect(try words(#"list album """#) == ["list", "album", ""])
        #expect(try words("find \"(Artist == 'x')\"") == ["find", "(Artist == 'x')"])
    }

    @Test func brokenQuotingIsRefused() {
        #expect(throws: MPDRequest.Failure.self) { try words(#"find artist "open"#) }
        #expect(throws: MPDRequest.Failure.self) { try words(#"find "a"b"#) }
        #expect(throws: MPDRequest.Failure.self) { try words(#"add "ends in \"#) }
    }

    @Test func quotingReadsBack() throws {
        for word in ["plain", "two words", #"quote " and \ backslash"#, ""] {
            #expect(try words("add " + MPDRequest.quoted(word)) == ["add", word])
        }
    }

    @Test func answersAreMPDsLines() {
        var answer = MPDAnswer()
        answer.add("Title", "two\nlines")
        answer.add("elapsed", seconds: 12.3456)
        answer.add("duration", seconds: 5)
        answer.listOK()
        answer.acknowledge(MPDError(.noExist, "No such song"), index: 3, command: "playid")
        #expect(String(decoding: answer.bytes, as: UTF8.self) == "Title: two lines\nelapsed: 12.346\nduration: 5.000\nlist_OK\nACK [50@3] {playid} No such song\n")
    }

    @Test func binaryChunksSayTheirLength() {
        var answer = MPDAnswer()
        answer.add("size", 3)
        answer.addBinary([1, 2, 10])
        answer.ok()
        #expect(answer.bytes == Array("size: 3\nbinary: 3\n".utf8) + [1, 2, 10, 10] + Array("OK\n".utf8))
    }

    @Test func addressesParse() throws {
        #expect(try MPDAddress(parsing: "127.0.0.1:6600") == MPDAddress(parsing: "127.0.0.1:6600"))
        let six = try MPDAddress(parsing: "[::1]:6601")
        #expect(six.host == "::1" && six.port == 6601 && six.description == "[::1]:6601")
        #expect(six.isLoopback)
        #expect(try MPDAddress(parsing: "127.0.0.1:6600").isLoopback)
        #expect(try !MPDAddress(parsing: "0.0.0.0:6600").isLoopback)
        for bad in ["6600", "host:", ":6600", "host:70000", "host:x", "host:-1"] {
            #expect(throws: MPDListenError.self) { try MPDAddress(parsing: bad) }
        }
    }
}
