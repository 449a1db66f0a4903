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
/// is refused), and libxml2 prints nothing. What real feeds get wrong and
/// every feed reader reads anyway is read too, and said (`mp_xml_notes`):
/// prefixes never declared, references to HTML's entities (`&eacute;`).
typedef struct mp_xml_reader mp_xml_reader;
typedef struct mp_xml_node mp_xml_node;

typedef struct {
    /// What went wrong, one line; line and column 0 when nothing did.
    char message[512];
    int line;
    int column;
    /// libxml2's error code and domain (xmlParserErrors, xmlErrorDomain); 0
    /// for ours, MP_XML_REFUSED for a document refused whatever is mended.
    int code;
    int domain;
} mp_xml_error;

/// The code of a document refused as it is, not for a mistake (it declares entities).
#define MP_XML_REFUSED (-1)

/// `mp_xml_open`'s options.
enum {
    /// The bytes are UTF-8 whatever the XML declaration says (they were transcoded).
    MP_XML_IGNORE_ENCODING = 1,
    /// libxml2's recovery: a document that is not well-formed is read as a
    /// tree as far as libxml2 can make sense of it (still no DTD, no entity,
    /// no network), then walked as the stream is.
    MP_XML_RECOVER = 2,
};

/// A reader of `length` bytes (which must outlive it); NULL with `error`
/// filled when libxml2 cannot be loaded (or, with MP_XML_RECOVER, when
/// even recovery finds no element).
mp_xml_reader *mp_xml_open(const char *bytes, size_t length, int options, mp_xml_error *error);
void mp_xml_close(mp_xml_reader *reader);

/// What the reader read past so far, to be said.
typedef struct {
    /// Prefixes used without a declaration, space-separated ("itunes podcast").
    char undeclared_prefixes[160];
    /// References to entities the document does not declare (`&eacute;`
    /// under an RSS 0.91 DOCTYPE): read from HTML's table when there.
    long undeclared_entities;
    char first_entity[40];
    /// With MP_XML_RECOVER: the first error recovery read past (line 0: none).
    mp_xml_error recovered;
} mp_xml_notes;

void mp_xml_get_notes(mp_xml_reader *reader, mp_xml_notes *notes);

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
/// The local name (without a prefix that was never declared), and the
/// namespace URI or NULL.
const char *mp_xml_name(mp_xml_node *node);
const char *mp_xml_namespace(mp_xml_node *node);

/// The namespaces feeds use, told the way podcast clients tell them: case
/// aside, http or https, with or without a trailing slash or `#`; and a
/// prefix used without a declaration is its usual namespace's.
enum {
    MP_NS_NONE = 0,
    MP_NS_OTHER,
    MP_NS_ITUNES,
    MP_NS_CONTENT,
    MP_NS_ATOM,
    MP_NS_ATOM03,
    MP_NS_MEDIA,
    MP_NS_CHAPTERS,
    MP_NS_PODCAST,
    MP_NS_DC,
    MP_NS_DCTERMS,
    MP_NS_RDF,
    /// RSS's own elements in a namespace: RSS 1.0, RSS 0.90, UserLand's RSS 2.0.
    MP_NS_RSS,
    MP_NS_GOOGLEPLAY,
    MP_NS_XHTML,
    /// mod_enclosure (RSS 1.0).
    MP_NS_ENCLOSURE,
};
int mp_xml_namespace_kind(mp_xml_node *node);

/// The line the element starts on.
long mp_xml_line(mp_xml_node *node);
/// The text of an element and its descendants (text and CDATA, in order;
/// a reference to an entity the document does not declare becomes HTML's
/// character of that name, or stays `&name;`), malloc'ed: the caller frees it.
char *mp_xml_text(mp_xml_node *node);
/// An attribute's value by local name (any namespace when `namespace_uri`
/// is NULL, an undeclared prefix included), malloc'ed, or NULL when absent.
char *mp_xml_attribute(mp_xml_node *node, const char *name, const char *namespace_uri);

/// What `mp_xml_repair` changed.
typedef struct {
    /// References to HTML's entities (`&hellip;`), written as character references.
    long html_entities;
    char first_entity[40];
    /// `&` that starts no reference (a URL's `?a=1&b=2`), written as `&amp;`.
    long bare_ampersands;
    /// `<` that starts no markup ("a < b" in text), written as `&lt;`.
    long bare_less_thans;
    /// HTML's empty tags left open (`<br>`, `<img …>`), closed where they
    /// open (`<br/>`), their stray end tags dropped.
    long open_empty_tags;
    /// Character references to no XML character (`&#0;`, `&#xD800;`), written as U+FFFD.
    long bad_references;
    /// Control characters XML does not allow, removed.
    long control_characters;
    /// An XML declaration not at the start (after blank lines, or a second one), removed or moved.
    long stray_declarations;
} mp_xml_repairs;

/// A copy of `bytes` with the mistakes above mended (outside CDATA,
/// comments, processing instructions and the DOCTYPE), malloc'ed with its
/// length in `repaired_length`; NULL when nothing needed mending. Works on
/// any ASCII-compatible encoding (never on UTF-16, UTF-32 or EBCDIC).
char *mp_xml_repair(const char *bytes, size_t length, size_t *repaired_length, mp_xml_repairs *repairs);

/// The document with XML's five predefined entity references written as
/// character references (`&amp;` as `&#38;`), outside CDATA, comments,
/// processing instructions and the DOCTYPE: libxml2 2.9's recovery drops
/// every entity reference after the first error ("Tom &amp; Jerry" read as
/// "Tom  Jerry"), but not a character reference. Malloc'd, its length in
/// `written`; NULL when out of memory.
char *mp_xml_numeric_references(const char *bytes, size_t length, size_t *written);

/// HTML's character for an entity name (`hellip` → 0x2026), 0 when none.
unsigned mp_xml_html_entity(const char *name);

#endif
