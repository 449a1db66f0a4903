#include "mp_xml.h"
#include "libxml_api.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

unsigned mp_xml_html_entity(const char *name) {
    if (!libxml_load() || name == NULL) return 0;
    const htmlEntityDesc *found = libxml.html_entity((const xmlChar *)name);
    return found ? found->value : 0;
}

/// libxml2's message on one line, without its trailing newline.
static void copy_message(char *target, size_t size, const char *message) {
    snprintf(target, size, "%s", message ? message : "not well-formed XML");
    for (char *c = target; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    size_t length = strlen(target);
    while (length > 0 && target[length - 1] == ' ') target[--length] = 0;
}

static void set_error(mp_xml_error *error, const char *message) {
    memset(error, 0, sizeof *error);
    snprintf(error->message, sizeof error->message, "%s", message);
    error->line = 1;
    error->column = 1;
}

/// Whether a document type declares entities of its own.
static int declares_entities(xmlDtdPtr dtd) {
    if (dtd == NULL) return 0;
    for (xmlNodePtr node = dtd->children; node != NULL; node = node->next) {
        if (node->type == XML_ENTITY_DECL) return 1;
    }
    return dtd->entities != NULL || dtd->pentities != NULL;
}

struct mp_xml_reader {
    xmlTextReaderPtr reader;
    /// The tree recovery read (MP_XML_RECOVER), walked by `reader`.
    xmlDocPtr recovered_document;
    /// The first error, where the handler writes it.
    mp_xml_error error;
    /// What was read past, to be said.
    mp_xml_notes notes;
    /// The depth of the root element (0), once read.
    int root_seen;
    /// An element was handed out: the next call skips its subtree.
    int skip;
    /// Recovering: errors are notes, not the end.
    int recovering;
};

/// Adds `prefix` to the undeclared prefixes noted, once.
static void note_prefix(mp_xml_notes *notes, const char *prefix) {
    if (prefix == NULL || *prefix == 0) return;
    size_t length = strlen(prefix);
    const char *at = notes->undeclared_prefixes;
    while ((at = strstr(at, prefix)) != NULL) {
        int starts = at == notes->undeclared_prefixes || at[-1] == ' ';
        int ends = at[length] == 0 || at[length] == ' ';
        if (starts && ends) return;
        at += length;
    }
    size_t used = strlen(notes->undeclared_prefixes);
    if (used + length + 2 >= sizeof notes->undeclared_prefixes) return;
    if (used > 0) notes->undeclared_prefixes[used++] = ' ';
    memcpy(notes->undeclared_prefixes + used, prefix, length + 1);
}

/// libxml2's errors, kept instead of printed: the first one is the cause
/// (the last is often "premature end of data" far below it). What real
/// feeds get wrong and the parser reads past is noted instead: a prefix
/// never declared (the element keeps `prefix:name` with no namespace, and
/// is told by its prefix), a reference to an entity no DTD here declares
/// (under a DOCTYPE whose DTD is never loaded: kept as a reference node).
static void keep_first_error(void *context, xmlErrorPtr raised) {
    mp_xml_reader *reader = context;
    if (raised == NULL || raised->level < XML_ERR_ERROR) return;
    if (raised->domain == XML_FROM_NAMESPACE) {
        if (raised->code == XML_NS_ERR_UNDEFINED_NAMESPACE) note_prefix(&reader->notes, raised->str1);
        return;
    }
    if (raised->code == XML_WAR_UNDECLARED_ENTITY) {
        if (reader->notes.undeclared_entities++ == 0 && raised->str1 != NULL) {
            snprintf(reader->notes.first_entity, sizeof reader->notes.first_entity, "%s", raised->str1);
        }
        return;
    }
    mp_xml_error *error = reader->recovering ? &reader->notes.recovered : &reader->error;
    if (error->line != 0) return;
    copy_message(error->message, sizeof error->message, raised->message);
    error->line = raised->line > 0 ? raised->line : 1;
    error->column = raised->int2 > 0 ? raised->int2 : 1;
    error->code = raised->code;
    error->domain = raised->domain;
}

static void print_nothing(void *context, const char *format, ...) {
    (void)context;
    (void)format;
}

/// Some errors are raised with no parser to tie them to (an encoding that
/// cannot be converted: EBCDIC declared on ASCII bytes), and libxml2 prints
/// those to stderr itself. While a reader works, this thread's handlers
/// (libxml2 keeps them per thread) send them to the reader's first error;
/// after, libxml2's defaults are put back.
static void hush(mp_xml_reader *reader) {
    libxml.set_generic_error(NULL, print_nothing);
    libxml.set_thread_error_handler(reader, keep_first_error);
}

static void unhush(void) {
    libxml.set_thread_error_handler(NULL, NULL);
    libxml.set_generic_error(NULL, NULL);
}

mp_xml_reader *mp_xml_open(const char *bytes, size_t length, int flags, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    if (!libxml_load()) {
        set_error(error, libxml.failure);
        return NULL;
    }
    if (length > (size_t)0x7fffffff) {
        set_error(error, "the document is larger than 2 GiB");
        return NULL;
    }
    mp_xml_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    // No NOENT (entities stay references: no expansion, no external
    // entity), no DTDLOAD, NONET; errors to the handler, never printed;
    // lines past 65535 kept; blank text between elements dropped.
    int options = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES | XML_PARSE_COMPACT | XML_PARSE_NOBLANKS;
    if (flags & MP_XML_IGNORE_ENCODING) options |= XML_PARSE_IGNORE_ENC;
    hush(reader);
    if (flags & MP_XML_RECOVER) {
        // The tree, as far as libxml2 makes sense of it; the same options.
        reader->recovering = 1;
        reader->recovered_document = libxml.read_memory(bytes, (int)length, NULL, NULL, options | XML_PARSE_RECOVER);
        reader->recovering = 0;
        xmlDocPtr document = reader->recovered_document;
        if (document == NULL || libxml.root_element(document) == NULL || declares_entities(document->intSubset)) {
            unhush();
            if (document != NULL && declares_entities(document->intSubset)) {
                set_error(error, "the document declares entities of its own (<!ENTITY>), which mediaplay does not expand");
                error->code = MP_XML_REFUSED;
            } else if (reader->notes.recovered.line != 0) {
                *error = reader->notes.recovered;
            } else {
                set_error(error, "an XML document without an element");
            }
            if (document != NULL) libxml.free_doc(document);
            free(reader);
            return NULL;
        }
        reader->reader = libxml.reader_walker(document);
    } else {
        reader->reader = libxml.reader_for_memory(bytes, (int)length, NULL, NULL, options);
    }
    unhush();
    if (reader->reader == NULL) {
        if (reader->recovered_document != NULL) libxml.free_doc(reader->recovered_document);
        free(reader);
        set_error(error, "libxml2 could not start reading");
        return NULL;
    }
    if (reader->recovered_document == NULL) libxml.set_error_handler(reader->reader, keep_first_error, reader);
    return reader;
}

void mp_xml_close(mp_xml_reader *reader) {
    if (reader == NULL) return;
    libxml.free_reader(reader->reader);
    // A walker never frees the tree it walks.
    if (reader->recovered_document != NULL) libxml.free_doc(reader->recovered_document);
    free(reader);
}

void mp_xml_get_notes(mp_xml_reader *reader, mp_xml_notes *notes) {
    *notes = reader->notes;
}

/// Moves on by one node (past the subtree handed out last); 1, or 0 at the
/// end, or -1 with the error filled.
static int advance(mp_xml_reader *reader, mp_xml_error *error) {
    hush(reader);
    int status = reader->skip ? libxml.next(reader->reader) : libxml.read(reader->reader);
    unhush();
    reader->skip = 0;
    if (status < 0 || reader->error.line != 0) {
        *error = reader->error;
        if (error->line == 0) set_error(error, "not well-formed XML");
        return -1;
    }
    if (status == 0) return 0;
    if (libxml.node_type(reader->reader) == XML_READER_TYPE_DOCUMENT_TYPE) {
        if (declares_entities((xmlDtdPtr)libxml.current_node(reader->reader))) {
            set_error(error, "the document declares entities of its own (<!ENTITY>), which mediaplay does not expand");
            error->code = MP_XML_REFUSED;
            return -1;
        }
    }
    return 1;
}

mp_xml_node *mp_xml_root(mp_xml_reader *reader, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    int status;
    while ((status = advance(reader, error)) == 1) {
        if (libxml.node_type(reader->reader) == XML_READER_TYPE_ELEMENT) {
            reader->root_seen = 1;
            return (mp_xml_node *)libxml.current_node(reader->reader);
        }
    }
    return NULL;
}

mp_xml_node *mp_xml_next(mp_xml_reader *reader, int depth, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    int status;
    while ((status = advance(reader, error)) == 1) {
        if (libxml.node_type(reader->reader) != XML_READER_TYPE_ELEMENT) continue;
        int at = libxml.depth(reader->reader);
        if (at < depth) continue;
        if (at > depth) {
            // Below an element handed out before: past it.
            reader->skip = 1;
            continue;
        }
        hush(reader);
        xmlNodePtr node = libxml.expand(reader->reader);
        unhush();
        if (node == NULL) {
            *error = reader->error;
            if (error->line == 0) set_error(error, "not well-formed XML");
            return NULL;
        }
        reader->skip = 1;
        return (mp_xml_node *)node;
    }
    return NULL;
}

mp_xml_node *mp_xml_parent(mp_xml_node *node) {
    xmlNodePtr parent = ((xmlNodePtr)node)->parent;
    return parent && parent->type == XML_ELEMENT_NODE ? (mp_xml_node *)parent : NULL;
}

static xmlNodePtr element_from(xmlNodePtr node) {
    while (node != NULL && node->type != XML_ELEMENT_NODE) node = node->next;
    return node;
}

mp_xml_node *mp_xml_first_element(mp_xml_node *node) {
    return (mp_xml_node *)element_from(((xmlNodePtr)node)->children);
}

mp_xml_node *mp_xml_next_element(mp_xml_node *node) {
    return (mp_xml_node *)element_from(((xmlNodePtr)node)->next);
}

const char *mp_xml_name(mp_xml_node *node) {
    xmlNodePtr element = (xmlNodePtr)node;
    const char *name = (const char *)element->name;
    // `itunes:duration` with no declaration of `itunes`: its local name.
    if (element->ns == NULL) {
        const char *colon = strchr(name, ':');
        if (colon != NULL && colon[1] != 0) return colon + 1;
    }
    return name;
}

const char *mp_xml_namespace(mp_xml_node *node) {
    xmlNsPtr ns = ((xmlNodePtr)node)->ns;
    return ns ? (const char *)ns->href : NULL;
}

/// Namespace URIs as podcast clients compare them: lowercased, without
/// `http://` or `https://`, without trailing `/` or `#`.
static const struct { const char *uri; int kind; } known_namespaces[] = {
    { "www.itunes.com/dtds/podcast-1.0.dtd", MP_NS_ITUNES },
    { "itunes.com/dtds/podcast-1.0.dtd", MP_NS_ITUNES },
    { "purl.org/rss/1.0/modules/content", MP_NS_CONTENT },
    { "www.w3.org/2005/atom", MP_NS_ATOM },
    { "purl.org/atom/ns", MP_NS_ATOM03 },
    { "search.yahoo.com/mrss", MP_NS_MEDIA },
    { "video.search.yahoo.com/mrss", MP_NS_MEDIA },
    { "tools.search.yahoo.com/mrss", MP_NS_MEDIA },
    { "podlove.org/simple-chapters", MP_NS_CHAPTERS },
    { "podcastindex.org/namespace/1.0", MP_NS_PODCAST },
    { "github.com/podcastindex-org/podcast-namespace/blob/main/docs/1.0.md", MP_NS_PODCAST },
    { "purl.org/dc/elements/1.1", MP_NS_DC },
    { "purl.org/dc/terms", MP_NS_DCTERMS },
    { "www.w3.org/1999/02/22-rdf-syntax-ns", MP_NS_RDF },
    { "purl.org/rss/1.0", MP_NS_RSS },
    { "my.netscape.com/rdf/simple/0.9", MP_NS_RSS },
    { "backend.userland.com/rss2", MP_NS_RSS },
    { "backend.userland.com/rss", MP_NS_RSS },
    { "blogs.law.harvard.edu/tech/rss", MP_NS_RSS },
    { "www.google.com/schemas/play-podcasts/1.0", MP_NS_GOOGLEPLAY },
    { "www.w3.org/1999/xhtml", MP_NS_XHTML },
    { "purl.oclc.org/net/rss_2.0/enc", MP_NS_ENCLOSURE },
};

/// The usual prefixes, for elements whose prefix was never declared.
static const struct { const char *prefix; int kind; } known_prefixes[] = {
    { "itunes", MP_NS_ITUNES }, { "content", MP_NS_CONTENT }, { "atom", MP_NS_ATOM }, { "media", MP_NS_MEDIA },
    { "psc", MP_NS_CHAPTERS }, { "podcast", MP_NS_PODCAST }, { "dc", MP_NS_DC }, { "dcterms", MP_NS_DCTERMS },
    { "rdf", MP_NS_RDF }, { "googleplay", MP_NS_GOOGLEPLAY }, { "xhtml", MP_NS_XHTML }, { "enc", MP_NS_ENCLOSURE },
};

static int kind_of_uri(const char *uri) {
    while (*uri == ' ' || *uri == '\t' || *uri == '\n' || *uri == '\r') uri++;
    if (strncasecmp(uri, "http://", 7) == 0) uri += 7;
    else if (strncasecmp(uri, "https://", 8) == 0) uri += 8;
    size_t length = strlen(uri);
    while (length > 0 && (uri[length - 1] == '/' || uri[length - 1] == '#' || uri[length - 1] == ' ' || uri[length - 1] == '\n')) length--;
    for (size_t i = 0; i < sizeof known_namespaces / sizeof known_namespaces[0]; i++) {
        if (strlen(known_namespaces[i].uri) == length && strncasecmp(known_namespaces[i].uri, uri, length) == 0) return known_namespaces[i].kind;
    }
    return MP_NS_OTHER;
}

int mp_xml_namespace_kind(mp_xml_node *node) {
    xmlNodePtr element = (xmlNodePtr)node;
    xmlNsPtr ns = element->ns;
    if (ns == NULL) {
        const char *name = (const char *)element->name;
        const char *colon = strchr(name, ':');
        if (colon == NULL || colon[1] == 0) return MP_NS_NONE;
        size_t length = (size_t)(colon - name);
        for (size_t i = 0; i < sizeof known_prefixes / sizeof known_prefixes[0]; i++) {
            if (strlen(known_prefixes[i].prefix) == length && strncasecmp(known_prefixes[i].prefix, name, length) == 0) return known_prefixes[i].kind;
        }
        return MP_NS_OTHER;
    }
    // Told once per declaration, kept in it (libxml2 leaves `_private` to us).
    if (ns->_private != NULL) return (int)(intptr_t)ns->_private - 1;
    int kind = ns->href ? kind_of_uri((const char *)ns->href) : MP_NS_OTHER;
    ns->_private = (void *)(intptr_t)(kind + 1);
    return kind;
}

long mp_xml_line(mp_xml_node *node) {
    return libxml.line_of((xmlNodePtr)node);
}

typedef struct {
    char *bytes;
    size_t length;
    size_t capacity;
    int failed;
} buffer;

static void append_bytes(buffer *out, const char *text, size_t length) {
    if (out->failed) return;
    if (out->length + length + 1 > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 64;
        while (out->length + length + 1 > capacity) capacity *= 2;
        char *grown = realloc(out->bytes, capacity);
        if (grown == NULL) {
            out->failed = 1;
            return;
        }
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->length, text, length);
    out->length += length;
    out->bytes[out->length] = 0;
}

static void append(buffer *out, const char *text) {
    if (text != NULL) append_bytes(out, text, strlen(text));
}

/// A code point in UTF-8.
static void append_scalar(buffer *out, unsigned value) {
    char utf8[4];
    size_t length;
    if (value < 0x80) { utf8[0] = (char)value; length = 1; }
    else if (value < 0x800) { utf8[0] = (char)(0xC0 | value >> 6); utf8[1] = (char)(0x80 | (value & 0x3F)); length = 2; }
    else if (value < 0x10000) { utf8[0] = (char)(0xE0 | value >> 12); utf8[1] = (char)(0x80 | (value >> 6 & 0x3F)); utf8[2] = (char)(0x80 | (value & 0x3F)); length = 3; }
    else { utf8[0] = (char)(0xF0 | value >> 18); utf8[1] = (char)(0x80 | (value >> 12 & 0x3F)); utf8[2] = (char)(0x80 | (value >> 6 & 0x3F)); utf8[3] = (char)(0x80 | (value & 0x3F)); length = 4; }
    append_bytes(out, utf8, length);
}

/// Text and CDATA below `node`, in document order, iteratively (a deeply
/// nested document cannot overflow the stack). A reference to an entity
/// the document does not declare (it declares none: such documents are
/// refused) is HTML's character of that name, else stays as written.
static void gather(xmlNodePtr top, buffer *out) {
    xmlNodePtr node = top->children;
    while (node != NULL) {
        if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
            append(out, (const char *)node->content);
        } else if (node->type == XML_ENTITY_REF_NODE && node->name != NULL) {
            const htmlEntityDesc *found = libxml.html_entity(node->name);
            if (found != NULL) {
                append_scalar(out, found->value);
            } else {
                append(out, "&");
                append(out, (const char *)node->name);
                append(out, ";");
            }
        }
        if (node->type == XML_ELEMENT_NODE && node->children != NULL) {
            node = node->children;
            continue;
        }
        while (node != NULL && node->next == NULL) {
            node = node->parent;
            if (node == top) return;
        }
        if (node != NULL) node = node->next;
    }
}

char *mp_xml_text(mp_xml_node *node) {
    buffer out = { NULL, 0, 0, 0 };
    gather((xmlNodePtr)node, &out);
    if (out.bytes == NULL) return strdup("");
    return out.bytes;
}

char *mp_xml_attribute(mp_xml_node *node, const char *name, const char *namespace_uri) {
    for (xmlAttrPtr attribute = ((xmlNodePtr)node)->properties; attribute != NULL; attribute = attribute->next) {
        const char *own = (const char *)attribute->name;
        if (strcmp(own, name) != 0) {
            // `rdf:about` with `rdf` never declared.
            const char *colon = attribute->ns == NULL && namespace_uri == NULL ? strchr(own, ':') : NULL;
            if (colon == NULL || strcmp(colon + 1, name) != 0) continue;
        }
        if (namespace_uri != NULL && (attribute->ns == NULL || strcmp((const char *)attribute->ns->href, namespace_uri) != 0)) continue;
        buffer out = { NULL, 0, 0, 0 };
        for (xmlNodePtr child = attribute->children; child != NULL; child = child->next) {
            if (child->type == XML_TEXT_NODE) append(&out, (const char *)child->content);
        }
        return out.bytes ? out.bytes : strdup("");
    }
    return NULL;
}

// MARK: - Repair

static int starts(const char *bytes, size_t length, size_t at, const char *prefix) {
    size_t count = strlen(prefix);
    return at + count <= length && memcmp(bytes + at, prefix, count) == 0;
}

/// The offset just past `terminator` from `at`, or `length`.
static size_t past(const char *bytes, size_t length, size_t at, const char *terminator) {
    size_t count = strlen(terminator);
    for (size_t i = at; i + count <= length; i++) {
        if (bytes[i] == terminator[0] && memcmp(bytes + i, terminator, count) == 0) return i + count;
    }
    return length;
}

/// Past a `<!DOCTYPE …>`, its internal subset and quoted strings included.
static size_t past_doctype(const char *bytes, size_t length, size_t at) {
    int bracket = 0;
    char quote = 0;
    for (size_t i = at + 2; i < length; i++) {
        char c = bytes[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '[') {
            bracket++;
        } else if (c == ']') {
            if (bracket > 0) bracket--;
        } else if (c == '>' && bracket == 0) {
            return i + 1;
        }
    }
    return length;
}

static int is_name_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == ':' || c >= 0x80;
}

static int is_xml_char(unsigned long value) {
    return value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD) || (value >= 0x10000 && value <= 0x10FFFF);
}

/// A reference at `at` (an `&`): 1 when it is one XML reads (a predefined
/// entity, a character reference to an XML character), else 0 with what
/// to write instead in `replacement`; what it spans in `consumed` (a bare
/// `&` is replaced alone).
static int reference(const char *bytes, size_t length, size_t at, size_t *consumed, char *replacement, size_t size, mp_xml_repairs *repairs) {
    *consumed = 1;
    size_t i = at + 1;
    if (i < length && bytes[i] == '#') {
        int hex = i + 1 < length && (bytes[i + 1] == 'x' || bytes[i + 1] == 'X');
        size_t digits = i + 1 + (hex ? 1 : 0);
        size_t end = digits;
        unsigned long value = 0;
        while (end < length && end - digits < 10) {
            char c = bytes[end];
            int digit = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) break;
            value = value * (hex ? 16 : 10) + (unsigned long)digit;
            end++;
        }
        if (end == digits || end >= length || bytes[end] != ';') {
            repairs->bare_ampersands++;
            snprintf(replacement, size, "&amp;");
            return 0;
        }
        *consumed = end + 1 - at;
        if (is_xml_char(value)) return 1;
        repairs->bad_references++;
        snprintf(replacement, size, "&#xFFFD;");
        return 0;
    }
    size_t end = i;
    while (end < length && end - i < 40 && is_name_byte((unsigned char)bytes[end])) end++;
    if (end == i || end >= length || bytes[end] != ';') {
        repairs->bare_ampersands++;
        snprintf(replacement, size, "&amp;");
        return 0;
    }
    char name[48];
    size_t count = end - i;
    memcpy(name, bytes + i, count);
    name[count] = 0;
    if (strcmp(name, "amp") == 0 || strcmp(name, "lt") == 0 || strcmp(name, "gt") == 0 || strcmp(name, "quot") == 0 || strcmp(name, "apos") == 0) {
        *consumed = end + 1 - at;
        return 1;
    }
    unsigned value = mp_xml_html_entity(name);
    if (value != 0) {
        if (repairs->html_entities++ == 0) snprintf(repairs->first_entity, sizeof repairs->first_entity, "%s", name);
        snprintf(replacement, size, "&#%u;", value);
        *consumed = end + 1 - at;
        return 0;
    }
    // An entity no one declares: its text, as written.
    repairs->bare_ampersands++;
    snprintf(replacement, size, "&amp;");
    return 0;
}

/// HTML's empty elements that feeds write unclosed in text (not `link`
/// or `source`, which are RSS's own).
static int is_empty_html(const char *name, size_t length) {
    static const char *names[] = { "br", "hr", "img", "wbr", "area", "col", "embed", "input", "param", "meta" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i]) == length && strncasecmp(names[i], name, length) == 0) return 1;
    }
    return 0;
}

/// At a `<`: an HTML empty tag left open (`<br>`, `<img src="…">`) is
/// written closed, and its end tag (`</br>`) dropped; the offset past it,
/// or 0 when it is no such tag (or already closed).
static size_t empty_tag(const char *bytes, size_t length, size_t at, buffer *out) {
    int closing = at + 1 < length && bytes[at + 1] == '/';
    size_t name = at + 1 + (closing ? 1 : 0);
    size_t end = name;
    while (end < length && ((bytes[end] >= 'a' && bytes[end] <= 'z') || (bytes[end] >= 'A' && bytes[end] <= 'Z'))) end++;
    if (end == name || end >= length || !is_empty_html(bytes + name, end - name)) return 0;
    if (!(bytes[end] == '>' || bytes[end] == '/' || bytes[end] == ' ' || bytes[end] == '\t' || bytes[end] == '\n' || bytes[end] == '\r')) return 0;
    // Its `>`, past quoted attribute values.
    char quote = 0;
    size_t close = end;
    for (; close < length; close++) {
        char c = bytes[close];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>' || c == '<') {
            break;
        }
    }
    if (close >= length || bytes[close] != '>') return 0;
    if (closing) return close + 1;  // `</br>`: dropped
    if (bytes[close - 1] == '/') return 0;  // already `<br/>`
    append_bytes(out, bytes + at, close - at);
    append(out, "/>");
    return close + 1;
}

char *mp_xml_numeric_references(const char *bytes, size_t length, size_t *written) {
    static const struct { const char *name; const char *number; } predefined[] = {
        { "&amp;", "&#38;" }, { "&lt;", "&#60;" }, { "&gt;", "&#62;" }, { "&quot;", "&#34;" }, { "&apos;", "&#39;" },
    };
    *written = 0;
    buffer out = { NULL, 0, 0, 0 };
    size_t at = 0;
    size_t copied = 0;
    while (at < length && !out.failed) {
        char c = bytes[at];
        size_t end = at + 1;
        if (c == '<') {
            // What holds no references: left as it is.
            if (starts(bytes, length, at, "<![CDATA[")) end = past(bytes, length, at + 9, "]]>");
            else if (starts(bytes, length, at, "<!--")) end = past(bytes, length, at + 4, "-->");
            else if (starts(bytes, length, at, "<!DOCTYPE")) end = past_doctype(bytes, length, at);
            else if (starts(bytes, length, at, "<?")) end = past(bytes, length, at + 2, "?>");
        } else if (c == '&') {
            for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
                if (starts(bytes, length, at, predefined[i].name)) {
                    append_bytes(&out, bytes + copied, at - copied);
                    append(&out, predefined[i].number);
                    end = at + strlen(predefined[i].name);
                    copied = end;
                    break;
                }
            }
        }
        at = end;
    }
    if (copied < length) append_bytes(&out, bytes + copied, length - copied);
    if (out.failed) {
        free(out.bytes);
        return NULL;
    }
    *written = out.length;
    return out.bytes ? out.bytes : strdup("");
}

char *mp_xml_repair(const char *bytes, size_t length, size_t *repaired_length, mp_xml_repairs *repairs) {
    memset(repairs, 0, sizeof *repairs);
    *repaired_length = 0;
    buffer out = { NULL, 0, 0, 0 };
    int changed = 0;
    // Only blank text (and a byte order mark) so far: an XML declaration
    // may still come first once that is dropped.
    int blank_so_far = 1;
    size_t bom = starts(bytes, length, 0, "\xEF\xBB\xBF") ? 3 : 0;
    if (bom) append_bytes(&out, bytes, bom);
    size_t at = bom;
    while (at < length && !out.failed) {
        unsigned char c = (unsigned char)bytes[at];
        if (c == '<') {
            size_t end;
            if (starts(bytes, length, at, "<![CDATA[")) {
                end = past(bytes, length, at + 9, "]]>");
            } else if (starts(bytes, length, at, "<!--")) {
                end = past(bytes, length, at + 4, "-->");
            } else if (starts(bytes, length, at, "<!DOCTYPE")) {
                end = past_doctype(bytes, length, at);
            } else if (starts(bytes, length, at, "<?")) {
                end = past(bytes, length, at + 2, "?>");
                int declaration = at + 5 < length && strncasecmp(bytes + at + 2, "xml", 3) == 0 &&
                    (bytes[at + 5] == ' ' || bytes[at + 5] == '?' || bytes[at + 5] == '\t' || bytes[at + 5] == '\r' || bytes[at + 5] == '\n');
                if (declaration && at > bom) {
                    repairs->stray_declarations++;
                    changed = 1;
                    if (blank_so_far) {
                        // Blank lines before it (a template's): the declaration moves to the start.
                        out.length = bom;
                        append_bytes(&out, bytes + at, end - at);
                    }
                    at = end;
                    blank_so_far = 0;
                    continue;
                }
            } else {
                unsigned char next = at + 1 < length ? (unsigned char)bytes[at + 1] : 0;
                int opens = (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || next == '_' || next == ':' || next == '/' || next >= 0x80;
                if (!opens) {
                    // "a < b" in text: a character, not markup.
                    repairs->bare_less_thans++;
                    changed = 1;
                    append(&out, "&lt;");
                    at++;
                    blank_so_far = 0;
                    continue;
                }
                size_t closed = empty_tag(bytes, length, at, &out);
                if (closed != 0) {
                    repairs->open_empty_tags++;
                    changed = 1;
                    at = closed;
                    blank_so_far = 0;
                    continue;
                }
                end = at + 1;
            }
            append_bytes(&out, bytes + at, end - at);
            at = end;
            blank_so_far = 0;
        } else if (c == '&') {
            char replacement[24];
            size_t consumed;
            if (reference(bytes, length, at, &consumed, replacement, sizeof replacement, repairs)) {
                append_bytes(&out, bytes + at, consumed);
            } else {
                changed = 1;
                append(&out, replacement);
            }
            at += consumed;
            blank_so_far = 0;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            repairs->control_characters++;
            changed = 1;
            at++;
        } else {
            // A run of ordinary bytes at once.
            size_t end = at + 1;
            int blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
            while (end < length) {
                unsigned char d = (unsigned char)bytes[end];
                if (d == '<' || d == '&' || (d < 0x20 && d != '\t' && d != '\n' && d != '\r')) break;
                if (!(d == ' ' || d == '\t' || d == '\n' || d == '\r')) blank = 0;
                end++;
            }
            if (!blank) blank_so_far = 0;
            append_bytes(&out, bytes + at, end - at);
            at = end;
        }
    }
    if (!changed || out.failed) {
        free(out.bytes);
        if (out.failed) memset(repairs, 0, sizeof *repairs);
        return NULL;
    }
    *repaired_length = out.length;
    return out.bytes;
}
