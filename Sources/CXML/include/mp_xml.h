#ifndef MEDIAPLAY_CXML_H
#define MEDIAPLAY_CXML_H

#include <stddef.h>

/// An XML document read by libxml2's streaming reader, which is loaded
/// (dlopen) the first time an XML feed is read: a program that never reads
/// one never maps it. The document is never held whole: each element asked
/// for is built with its subtree, and freed when the reader moves on. The
/// walk is over opaque nodes, so no libxml2 header is needed to use it.
///
/// Safe with hostile input: no network, no external DTD or entity is ever
/// loaded, entities are never substituted (a document that declares its own
/// is refused), and libxml2 prints nothing.
typedef struct mp_xml_reader mp_xml_reader;
typedef struct mp_xml_node mp_xml_node;

typedef struct {
    /// What went wrong, one line; line and column 0 when nothing did.
    char message[512];
    int line;
    int column;
} mp_xml_error;

/// A reader of `length` bytes (which must outlive it); NULL with `error`
/// filled when libxml2 cannot be loaded. `ignore_declared_encoding`: the
/// bytes are UTF-8 whatever the XML declaration says (they were transcoded).
mp_xml_reader *mp_xml_open(const char *bytes, size_t length, int ignore_declared_encoding, mp_xml_error *error);
void mp_xml_close(mp_xml_reader *reader);

/// The root element, not expanded: only its name, namespace and line may
/// be asked. NULL at the end of the document or on an error (in `error`).
mp_xml_node *mp_xml_root(mp_xml_reader *reader, mp_xml_error *error);
/// The next element `depth` levels below the root's level (the root is 0),
/// with its whole subtree, valid until the next call; the reader then skips
/// its subtree. NULL at the end or on an error (in `error`).
mp_xml_node *mp_xml_next(mp_xml_reader *reader, int depth, mp_xml_error *error);

/// The first element child, and the next element sibling (text, comments
/// and the rest are skipped).
mp_xml_node *mp_xml_first_element(mp_xml_node *node);
mp_xml_node *mp_xml_next_element(mp_xml_node *node);
mp_xml_node *mp_xml_parent(mp_xml_node *node);
/// The local name, and the namespace URI or NULL.
const char *mp_xml_name(mp_xml_node *node);
const char *mp_xml_namespace(mp_xml_node *node);
/// The line the element starts on.
long mp_xml_line(mp_xml_node *node);
/// The text of an element and its descendants (text and CDATA, in order;
/// entity references are not expanded), malloc'ed: the caller frees it.
char *mp_xml_text(mp_xml_node *node);
/// An attribute's value by local name (any namespace when `namespace_uri`
/// is NULL), malloc'ed, or NULL when absent.
char *mp_xml_attribute(mp_xml_node *node, const char *name, const char *namespace_uri);

#endif
