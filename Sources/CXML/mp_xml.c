#include "mp_xml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

/// The few libxml2 functions used, found with dlsym (types from its headers).
static struct {
    __typeof__(&xmlInitParser) init;
    __typeof__(&xmlReaderForMemory) reader_for_memory;
    __typeof__(&xmlFreeTextReader) free_reader;
    __typeof__(&xmlTextReaderRead) read;
    __typeof__(&xmlTextReaderNext) next;
    __typeof__(&xmlTextReaderDepth) depth;
    __typeof__(&xmlTextReaderNodeType) node_type;
    __typeof__(&xmlTextReaderCurrentNode) current_node;
    __typeof__(&xmlTextReaderExpand) expand;
    __typeof__(&xmlTextReaderSetStructuredErrorHandler) set_error_handler;
    __typeof__(&xmlGetLineNo) line_of;
    __typeof__(&xmlSetGenericErrorFunc) set_generic_error;
    __typeof__(&xmlSetStructuredErrorFunc) set_thread_error_handler;
    char failure[256];
    int loaded;
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(api.failure, sizeof api.failure, "cannot load libxml2 (%s); install libxml2", dlerror());
        return;
    }
    struct { void **slot; const char *name; } symbols[] = {
        { (void **)&api.init, "xmlInitParser" },
        { (void **)&api.reader_for_memory, "xmlReaderForMemory" },
        { (void **)&api.free_reader, "xmlFreeTextReader" },
        { (void **)&api.read, "xmlTextReaderRead" },
        { (void **)&api.next, "xmlTextReaderNext" },
        { (void **)&api.depth, "xmlTextReaderDepth" },
        { (void **)&api.node_type, "xmlTextReaderNodeType" },
        { (void **)&api.current_node, "xmlTextReaderCurrentNode" },
        { (void **)&api.expand, "xmlTextReaderExpand" },
        { (void **)&api.set_error_handler, "xmlTextReaderSetStructuredErrorHandler" },
        { (void **)&api.line_of, "xmlGetLineNo" },
        { (void **)&api.set_generic_error, "xmlSetGenericErrorFunc" },
        { (void **)&api.set_thread_error_handler, "xmlSetStructuredErrorFunc" },
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(api.failure, sizeof api.failure, "libxml2 has no %s", symbols[i].name);
            return;
        }
    }
    // Once, before any thread parses (libxml2's rule).
    api.init();
    api.loaded = 1;
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

/// Whether a document type declares entities of its own.
static int declares_entities(xmlDtdPtr dtd) {
    if (dtd == NULL) return 0;
    for (xmlNodePtr node = dtd->children; node != NULL; node = node->next) {
        if (node->type == XML_ENTITY_DECL) return 1;
    }
    return dtd->entities != NULL || dtd->pentities != NULL;
}

/// libxml2's errors, kept instead of printed: the first one is the cause
/// (the last is often "premature end of data" far below it).
static void keep_first_error(void *context, xmlErrorPtr raised) {
    mp_xml_error *error = context;
    if (raised == NULL || raised->level < XML_ERR_ERROR || error->line != 0) return;
    copy_message(error->message, sizeof error->message, raised->message);
    error->line = raised->line > 0 ? raised->line : 1;
    error->column = raised->int2 > 0 ? raised->int2 : 1;
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
static void hush(mp_xml_error *kept) {
    api.set_generic_error(NULL, print_nothing);
    api.set_thread_error_handler(kept, keep_first_error);
}

static void unhush(void) {
    api.set_thread_error_handler(NULL, NULL);
    api.set_generic_error(NULL, NULL);
}

struct mp_xml_reader {
    xmlTextReaderPtr reader;
    /// The first error, where the handler writes it.
    mp_xml_error error;
    /// The depth of the root element (0), once read.
    int root_seen;
    /// An element was handed out: the next call skips its subtree.
    int skip;
};

mp_xml_reader *mp_xml_open(const char *bytes, size_t length, int ignore_declared_encoding, mp_xml_error *error) {
    pthread_once(&load_once, load);
    memset(error, 0, sizeof *error);
    if (!api.loaded) {
        snprintf(error->message, sizeof error->message, "%s", api.failure);
        error->line = 1;
        error->column = 1;
        return NULL;
    }
    if (length > (size_t)0x7fffffff) {
        snprintf(error->message, sizeof error->message, "the document is larger than 2 GiB");
        error->line = 1;
        error->column = 1;
        return NULL;
    }
    mp_xml_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    // No NOENT (entities stay references: no expansion, no external
    // entity), no DTDLOAD, NONET; errors to the handler, never printed;
    // lines past 65535 kept; blank text between elements dropped.
    int options = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES | XML_PARSE_COMPACT | XML_PARSE_NOBLANKS;
    if (ignore_declared_encoding) options |= XML_PARSE_IGNORE_ENC;
    hush(&reader->error);
    reader->reader = api.reader_for_memory(bytes, (int)length, NULL, NULL, options);
    unhush();
    if (reader->reader == NULL) {
        free(reader);
        snprintf(error->message, sizeof error->message, "libxml2 could not start reading");
        error->line = 1;
        error->column = 1;
        return NULL;
    }
    api.set_error_handler(reader->reader, keep_first_error, &reader->error);
    return reader;
}

void mp_xml_close(mp_xml_reader *reader) {
    if (reader == NULL) return;
    api.free_reader(reader->reader);
    free(reader);
}

/// Moves on by one node (past the subtree handed out last); 1, or 0 at the
/// end, or -1 with the error filled.
static int advance(mp_xml_reader *reader, mp_xml_error *error) {
    hush(&reader->error);
    int status = reader->skip ? api.next(reader->reader) : api.read(reader->reader);
    unhush();
    reader->skip = 0;
    if (status < 0 || reader->error.line != 0) {
        *error = reader->error;
        if (error->line == 0) {
            snprintf(error->message, sizeof error->message, "not well-formed XML");
            error->line = 1;
            error->column = 1;
        }
        return -1;
    }
    if (status == 0) return 0;
    if (api.node_type(reader->reader) == XML_READER_TYPE_DOCUMENT_TYPE) {
        if (declares_entities((xmlDtdPtr)api.current_node(reader->reader))) {
            snprintf(error->message, sizeof error->message, "the document declares entities of its own (<!ENTITY>), which mediaplay does not expand");
            error->line = 1;
            error->column = 1;
            return -1;
        }
    }
    return 1;
}

mp_xml_node *mp_xml_root(mp_xml_reader *reader, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    int status;
    while ((status = advance(reader, error)) == 1) {
        if (api.node_type(reader->reader) == XML_READER_TYPE_ELEMENT) {
            reader->root_seen = 1;
            return (mp_xml_node *)api.current_node(reader->reader);
        }
    }
    return NULL;
}

mp_xml_node *mp_xml_next(mp_xml_reader *reader, int depth, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    int status;
    while ((status = advance(reader, error)) == 1) {
        if (api.node_type(reader->reader) != XML_READER_TYPE_ELEMENT) continue;
        int at = api.depth(reader->reader);
        if (at < depth) continue;
        if (at > depth) {
            // Below an element handed out before: past it.
            reader->skip = 1;
            continue;
        }
        hush(&reader->error);
        xmlNodePtr node = api.expand(reader->reader);
        unhush();
        if (node == NULL) {
            *error = reader->error;
            if (error->line == 0) {
                snprintf(error->message, sizeof error->message, "not well-formed XML");
                error->line = 1;
                error->column = 1;
            }
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
    return (const char *)((xmlNodePtr)node)->name;
}

const char *mp_xml_namespace(mp_xml_node *node) {
    xmlNsPtr ns = ((xmlNodePtr)node)->ns;
    return ns ? (const char *)ns->href : NULL;
}

long mp_xml_line(mp_xml_node *node) {
    return api.line_of((xmlNodePtr)node);
}

typedef struct {
    char *bytes;
    size_t length;
    size_t capacity;
} buffer;

static void append(buffer *out, const char *text) {
    if (text == NULL) return;
    size_t length = strlen(text);
    if (out->length + length + 1 > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 64;
        while (out->length + length + 1 > capacity) capacity *= 2;
        char *grown = realloc(out->bytes, capacity);
        if (grown == NULL) return;
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->length, text, length);
    out->length += length;
    out->bytes[out->length] = 0;
}

/// Text and CDATA below `node`, in document order, iteratively (a deeply
/// nested document cannot overflow the stack).
static void gather(xmlNodePtr top, buffer *out) {
    xmlNodePtr node = top->children;
    while (node != NULL) {
        if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
            append(out, (const char *)node->content);
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
    buffer out = { NULL, 0, 0 };
    gather((xmlNodePtr)node, &out);
    if (out.bytes == NULL) return strdup("");
    return out.bytes;
}

char *mp_xml_attribute(mp_xml_node *node, const char *name, const char *namespace_uri) {
    for (xmlAttrPtr attribute = ((xmlNodePtr)node)->properties; attribute != NULL; attribute = attribute->next) {
        if (strcmp((const char *)attribute->name, name) != 0) continue;
        if (namespace_uri != NULL && (attribute->ns == NULL || strcmp((const char *)attribute->ns->href, namespace_uri) != 0)) continue;
        buffer out = { NULL, 0, 0 };
        for (xmlNodePtr child = attribute->children; child != NULL; child = child->next) {
            if (child->type == XML_TEXT_NODE) append(&out, (const char *)child->content);
        }
        return out.bytes ? out.bytes : strdup("");
    }
    return NULL;
}
