import CXML
import Foundation

/// An XML document read as a stream by libxml2 (through CXML: no network,
/// no DTD, no entity expansion): the root, then one element at a time with
/// its subtree, never the whole document at once (a 5,000-episode podcast
/// took 50 MB and twice the time as a tree).
final class XMLStream {
    private let reader: OpaquePointer
    /// The bytes the reader reads in place.
    private let bytes: UnsafeMutableBufferPointer<UInt8>

    /// `ignoringDeclaredEncoding`: the bytes are UTF-8 whatever the XML
    /// declaration says (they were transcoded from the UTF-16 it names).
    init(_ bytes: [UInt8], ignoringDeclaredEncoding: Bool = false) throws(FeedError) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        var error = mp_xml_error()
        let opened = copy.baseAddress!.withMemoryRebound(to: CChar.self, capacity: copy.count) {
            mp_xml_open($0, bytes.count, ignoringDeclaredEncoding ? 1 : 0, &error)
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

    /// The root element: its name, namespace and line only.
    func root() throws(FeedError) -> XMLElement? {
        var error = mp_xml_error()
        let node = mp_xml_root(reader, &error)
        if error.line != 0 { throw Self.failure(error) }
        return node.map(XMLElement.init)
    }

    /// The next element at `depth` below the root's level, whole; valid
    /// until the next call.
    func next(atDepth depth: Int) throws(FeedError) -> XMLElement? {
        var error = mp_xml_error()
        let node = mp_xml_next(reader, Int32(depth), &error)
        if error.line != 0 { throw Self.failure(error) }
        return node.map(XMLElement.init)
    }

    private static func failure(_ error: mp_xml_error) -> FeedError {
        let message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return FeedError(position: SourcePosition(line: Int(max(error.line, 1)), column: Int(max(error.column, 1))), message: message)
    }
}

/// One element of an `XMLStream`'s current subtree.
struct XMLElement {
    let node: OpaquePointer

    var name: String { String(cString: mp_xml_name(node)) }
    var namespace: String? { mp_xml_namespace(node).map { String(cString: $0) } }
    var line: Int { max(1, Int(mp_xml_line(node))) }
    var parent: XMLElement? { mp_xml_parent(node).map(XMLElement.init) }

    /// Child elements, in order.
    var children: [XMLElement] {
        var result: [XMLElement] = []
        var next = mp_xml_first_element(node)
        while let child = next {
            result.append(XMLElement(node: child))
            next = mp_xml_next_element(child)
        }
        return result
    }

    /// The element's text (its descendants' too), trimmed; nil when empty.
    var text: String? {
        guard let raw = mp_xml_text(node) else { return nil }
        defer { free(raw) }
        let text = String(cString: raw).trimmedOfWhitespace
        return text.isEmpty ? nil : text
    }

    func attribute(_ name: String, namespace: String? = nil) -> String? {
        guard let raw = mp_xml_attribute(node, name, namespace) else { return nil }
        defer { free(raw) }
        let text = String(cString: raw).trimmedOfWhitespace
        return text.isEmpty ? nil : text
    }

    func `is`(_ name: String, in namespace: String?) -> Bool {
        self.name == name && self.namespace == namespace
    }
}
