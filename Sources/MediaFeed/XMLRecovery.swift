import CXML
import Foundation

/// Reading an XML feed the way feed readers do: as it is when it is
/// well-formed (the fast path, and nearly every feed); else mended, each
/// mend said in one phrase (`Feed.repairs`): HTML's entities and bare `&`
/// and `<`, control characters, an XML declaration not at the start, bytes
/// that are not in the encoding declared; else read by libxml2's recovery.
/// Never mended into reading: a DTD, an external entity, an entity the
/// document declares (refused, as before).
enum XMLRecovery {
    private enum Outcome {
        case read(Feed, mp_xml_notes)
        /// libxml2 stopped on the document: another reading may mend it.
        case failed(FeedError, mp_xml_error)
    }

    static func read(_ bytes: [UInt8], transcoded: Bool, _ body: (XMLStream) throws(FeedError) -> Feed) throws(FeedError) -> Feed {
        let first = try attempt(bytes, transcoded: transcoded, recovering: false, body)
        guard case let .failed(firstError, firstFailure) = first else { return finish(first, repairs: []) }
        if firstFailure.code == MP_XML_REFUSED { throw firstError }
        // Entities declared anywhere: refused before anything is mended
        // (the reader may have stopped on another error before the DOCTYPE).
        if bytes.firstRange(of: Array("<!ENTITY".utf8)) != nil {
            throw FeedError(position: SourcePosition(line: 1, column: 1), message: "the document declares entities of its own (<!ENTITY>), which mediaplay does not expand")
        }

        var repairs: [String] = []
        var working = bytes
        // EBCDIC (and UTF-16 and UTF-32, already UTF-8 here) is not mended byte by byte.
        let asciiCompatible = !bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94])
        let declared = transcoded ? nil : declaredEncoding(bytes)
        if asciiCompatible && !transcoded {
            // Bytes that are not UTF-8 where UTF-8 is declared (or implied).
            if declared.map(isUTF8Name) ?? true, !isValidUTF8(working) {
                working = utf8(fromMostlyUTF8: working)
                repairs.append("text not in UTF-8 (\(declared == nil ? "XML's default" : "as declared")) read as Windows-1252")
            }
            var mend = mp_xml_repairs()
            var length = 0
            let mended = working.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { mp_xml_repair($0.baseAddress, $0.count, &length, &mend) }
            }
            if let mended {
                working = Array(UnsafeBufferPointer(start: UnsafeRawPointer(mended).assumingMemoryBound(to: UInt8.self), count: length))
                free(mended)
                repairs += phrases(mend)
            }
        }
        var failure = firstFailure
        if working != bytes {
            let second = try attempt(working, transcoded: transcoded, recovering: false, body)
            switch second {
            case .read: return finish(second, repairs: repairs)
            case let .failed(error, code):
                if code.code == MP_XML_REFUSED { throw error }
                failure = code
            }
        }
        // A declared encoding the bytes are not in (or libxml2 does not
        // know): UTF-8, else Windows-1252, whatever it says.
        if asciiCompatible, let declared, !isUTF8Name(declared), Self.isAboutEncoding(failure) {
            let text = isValidUTF8(working) ? working : utf8(fromMostlyUTF8: working)
            let third = try attempt(text, transcoded: true, recovering: false, body)
            if case .read = third {
                let name = isValidUTF8(working) ? "UTF-8" : "Windows-1252"
                return finish(third, repairs: repairs + ["its declared encoding \(quoted(declared)) does not fit its bytes; read as \(name)"])
            }
        }
        // libxml2's recovery, as far as it makes sense of the document;
        // `&amp;` and its kind as character references, which it keeps.
        var written = 0
        if let numeric = working.withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { mp_xml_numeric_references($0.baseAddress, $0.count, &written) }
        }) {
            working = Array(UnsafeBufferPointer(start: UnsafeRawPointer(numeric).assumingMemoryBound(to: UInt8.self), count: written))
            free(numeric)
        }
        let last = try attempt(working, transcoded: transcoded, recovering: true, body)
        if case .read = last { return finish(last, repairs: repairs) }
        throw firstError
    }

    private static func attempt(_ bytes: [UInt8], transcoded: Bool, recovering: Bool, _ body: (XMLStream) throws(FeedError) -> Feed) throws(FeedError) -> Outcome {
        let stream: XMLStream
        do {
            stream = try XMLStream(bytes, ignoringDeclaredEncoding: transcoded, recovering: recovering)
        } catch {
            var failure = mp_xml_error()
            failure.line = Int32(error.position.line)
            return .failed(error, failure)
        }
        do {
            let feed = try body(stream)
            return .read(feed, stream.notes)
        } catch {
            // The feed's own errors (no channel, too many items) are final.
            guard let failure = stream.failure else { throw error }
            return .failed(error, failure)
        }
    }

    /// The feed, with what was mended and what the reader read past.
    private static func finish(_ outcome: Outcome, repairs: [String]) -> Feed {
        guard case .read(var feed, var notes) = outcome else { fatalError("finish takes a feed read") }
        var repairs = repairs
        let prefixes = withUnsafeBytes(of: &notes.undeclared_prefixes) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !prefixes.isEmpty {
            let names = prefixes.split(separator: " ").map { "\($0):" }.joined(separator: ", ")
            repairs.append("prefixes used without a declaration (\(names)) read as their usual namespaces")
        }
        if notes.undeclared_entities > 0 {
            let first = withUnsafeBytes(of: &notes.first_entity) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            repairs.append("\(count(Int(notes.undeclared_entities), "entity", "entities")) no DTD here declares (&\(first); …) read as HTML's")
        }
        if notes.recovered.line != 0 {
            repairs.append("not well-formed XML (line \(notes.recovered.line): \(XMLStream.message(notes.recovered))); read as far as libxml2's recovery makes sense of it")
        }
        feed.repairs = repairs
        return feed
    }

    private static func phrases(_ mend: mp_xml_repairs) -> [String] {
        var mend = mend
        var phrases: [String] = []
        if mend.html_entities > 0 {
            let first = withUnsafeBytes(of: &mend.first_entity) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            phrases.append("\(count(Int(mend.html_entities), "HTML entity", "HTML entities")) (&\(first); …) read as characters")
        }
        let bare = Int(mend.bare_ampersands + mend.bare_less_thans)
        if bare > 0 { phrases.append("\(count(bare, "bare & or <", "bare & or <")) read as text") }
        if mend.open_empty_tags > 0 { phrases.append("\(count(Int(mend.open_empty_tags), "HTML tag", "HTML tags")) like <br> closed") }
        if mend.bad_references > 0 { phrases.append("\(count(Int(mend.bad_references), "reference", "references")) to no XML character read as U+FFFD") }
        if mend.control_characters > 0 { phrases.append("\(count(Int(mend.control_characters), "control character", "control characters")) removed") }
        if mend.stray_declarations > 0 { phrases.append("an XML declaration not at the start moved or removed") }
        return phrases
    }

    private static func count(_ number: Int, _ one: String, _ many: String) -> String {
        number == 1 ? "1 \(one)" : "\(number) \(many)"
    }

    private static func quoted(_ name: String) -> String {
        "\"" + String(name.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" }.prefix(40).map(Character.init)) + "\""
    }

    /// Whether libxml2 stopped on the encoding: one it does not know or
    /// cannot convert, or an error in the declaration's line itself.
    private static func isAboutEncoding(_ failure: mp_xml_error) -> Bool {
        // XML_ERR_INTERNAL_ERROR (a switch of encoding), XML_ERR_INVALID_CHAR,
        // XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_INVALID_ENCODING.
        [1, 9, 32, 81].contains(failure.code) || failure.line <= 1
    }

    static func isUTF8Name(_ name: String) -> Bool {
        ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased())
    }

    /// The encoding an XML declaration at the start names, lowercased.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        let end = bytes[start...].prefix(300).firstIndex(of: UInt8(ascii: ">")) ?? min(bytes.count, start + 300)
        let declaration = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let name = rest.dropFirst().prefix { $0 != quote }
        return name.isEmpty ? nil : name.lowercased()
    }

    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// UTF-8 as it is, and each byte that is not part of UTF-8 read as
    /// Windows-1252 (a Latin-1 file, or a UTF-8 one with a pasted Latin-1 line).
    static func utf8(fromMostlyUTF8 bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                out.append(byte)
                index += 1
                continue
            }
            let length = byte >= 0xF0 && byte < 0xF5 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte < 0xE0 ? 2 : 0
            if length > 0, index + length <= bytes.count, isValidUTF8(Array(bytes[index..<index + length])) {
                out.append(contentsOf: bytes[index..<index + length])
                index += length
                continue
            }
            out.append(contentsOf: String(Character(windows1252(byte))).utf8)
            index += 1
        }
        return out
    }

    /// Windows-1252's character for a byte of 0x80 and above.
    static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let high: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
        let value = byte >= 0x80 && byte < 0xA0 ? high[Int(byte - 0x80)] : UInt32(byte)
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
