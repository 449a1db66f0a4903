import CXML
import Foundation

/// An XML document as libxml2 read it (through CXML: no network, no DTD,
/// no entity expansion), walked element by element. Lives as long as the
/// tree: elements must not outlive it.
final class XMLTree {
    private let document: OpaquePointer

    /// A document that is not well-formed is `line:column: reason`.
    init(_ bytes: [UInt8]) throws(FeedError) {
        var error = mp_xml_error()
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { mp_xml_parse($0, buffer.count, &error) }
        }
        guard let parsed else {
            let message = withUnsafeBytes(of: error.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw FeedError(position: SourcePosition(line: Int(max(error.line, 1)), column: Int(max(error.column, 1))), message: message)
        }
        document = parsed
    }

    deinit { mp_xml_free(document) }

    var root: XMLElement? { mp_xml_root(document).map(XMLElement.init) }
}

/// One element of an `XMLTree`.
struct XMLElement {
    let node: OpaquePointer

    var name: String { String(cString: mp_xml_name(node)) }
    var namespace: String? { mp_xml_namespace(node).map { String(cString: $0) } }
    var line: Int { max(1, Int(mp_xml_line(node))) }

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
