import CXML
import Foundation

/// An XML document read as a stream by libxml2 (through CXML: no network,
/// no DTD, no entity expansion): the root, then one element at a time with
/// its subtree, never the whole document at once (a 5,000-episode podcast
/// took 50 MB and twice the time as a tree).
package final class XMLStream {
    private let reader: OpaquePointer
    /// The bytes the reader reads in place.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// libxml2's error when reading stopped on one (not the feed's own
    /// errors, which a reader above throws): another reading may mend it.
    private(set) var failure: mp_xml_error?

    /// `ignoringDeclaredEncoding`: the bytes are UTF-8 whatever the XML
    /// declaration says (they were transcoded). `recovering`: libxml2's
    /// recovery reads a document that is not well-formed as far as it can.
    package init(_ bytes: [UInt8], ignoringDeclaredEncoding: Bool = false, recovering: Bool = false) throws(FeedError) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        var error = mp_xml_error()
        let options = Int32(ignoringDeclaredEncoding ? MP_XML_IGNORE_ENCODING : 0) | Int32(recovering ? MP_XML_RECOVER : 0)
        let opened = copy.baseAddress!.withMemoryRebound(to: CChar.self, capacity: copy.count) {
            mp_xml_open($0, bytes.count, options, &error)
        }
        guard let opened else {
            copy.deallocate()
            throw Self.failure(error)
        }
        reader = opened
        self.bytes = copy
    }

    deinit {
        mp_xml_close(reader)
        bytes.deallocate()
    }

    /// What was read past so far (undeclared prefixes, HTML entities, what recovery mended).
    var notes: mp_xml_notes {
        var notes = mp_xml_notes()
        mp_xml_get_notes(reader, &notes)
        return notes
    }

    /// The root element: its name, namespace and line only.
    package func root() throws(FeedError) -> XMLElement? {
        var error = mp_xml_error()
        let node = mp_xml_root(reader, &error)
        if error.line != 0 {
            failure = error
            throw Self.failure(error)
        }
        return node.map(XMLElement.init)
    }

    /// The next element at `depth` below the root's level, whole; valid
    /// until the next call.
    package func next(atDepth depth: Int) throws(FeedError) -> XMLElement? {
        var error = mp_xml_error()
        let node = mp_xml_next(reader, Int32(depth), &error)
        if error.line != 0 {
            failure = error
            throw Self.failure(error)
        }
        return node.map(XMLElement.init)
    }

    static func message(_ error: mp_xml_error) -> String {
        withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func failure(_ error: mp_xml_error) -> FeedError {
        FeedError(position: SourcePosition(line: Int(max(error.line, 1)), column: Int(max(error.column, 1))), message: message(error))
    }
}

/// The namespaces feeds use (CXML's MP_NS_…, in the same order), told the
/// way podcast clients tell them: case aside, http or https, a trailing
/// slash or not; an undeclared `itunes:` is iTunes's.
enum XMLNamespace: Int32 {
    case none = 0, other, itunes, content, atom, atom03, media, chapters, podcast, dc, dcterms, rdf
    /// RSS's own elements in a namespace: RSS 1.0, RSS 0.90, UserLand's RSS 2.0.
    case rss
    case googleplay, xhtml
    /// mod_enclosure (RSS 1.0).
    case enclosure
}

/// One element of an `XMLStream`'s current subtree.
package struct XMLElement {
    let node: OpaquePointer

    /// The local name.
    package var name: String { String(cString: mp_xml_name(node)) }
    /// Whether the local name is `text` (no String made).
    package func named(_ text: StaticString) -> Bool {
        let own = mp_xml_name(node)!
        return text.withUTF8Buffer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { strncmp(own, $0.baseAddress!, $0.count) == 0 && own[$0.count] == 0 }
        }
    }
    package var namespace: String? { mp_xml_namespace(node).map { String(cString: $0) } }
    var kind: XMLNamespace { XMLNamespace(rawValue: mp_xml_namespace_kind(node)) ?? .other }
    package var line: Int { max(1, Int(mp_xml_line(node))) }
    package var parent: XMLElement? { mp_xml_parent(node).map(XMLElement.init) }

    /// Child elements, in order.
    package var children: [XMLElement] {
        var result: [XMLElement] = []
        var next = mp_xml_first_element(node)
        while let child = next {
            result.append(XMLElement(node: child))
            next = mp_xml_next_element(child)
        }
        return result
    }

    /// Each child element, in order, with no array made.
    package func forEachChild(_ body: (XMLElement) -> Void) {
        var next = mp_xml_first_element(node)
        while let child = next {
            body(XMLElement(node: child))
            next = mp_xml_next_element(child)
        }
    }

    /// The element's text (its descendants' too), trimmed; nil when empty.
    package var text: String? {
        guard let raw = mp_xml_text(node) else { return nil }
        defer { free(raw) }
        let text = String(cString: raw).trimmedOfWhitespace
        return text.isEmpty ? nil : text
    }

    package func attribute(_ name: String, namespace: String? = nil) -> String? {
        guard let raw = mp_xml_attribute(node, name, namespace) else { return nil }
        defer { free(raw) }
        let text = String(cString: raw).trimmedOfWhitespace
        return text.isEmpty ? nil : text
    }

    func `is`(_ name: StaticString, _ kind: XMLNamespace) -> Bool {
        self.kind == kind && named(name)
    }
}
