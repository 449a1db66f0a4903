#include "mp_xml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/// The few libxml2 functions used, found with dlsym (types from its headers).
static struct {
    __typeof__(&xmlInitParser) init;
    __typeof__(&xmlReadMemory) read_memory;
    __typeof__(&xmlFreeDoc) free_doc;
    __typeof__(&xmlGetLastError) last_error;
    __typeof__(&xmlResetLastError) reset_error;
    __typeof__(&xmlGetLineNo) line_of;
    __typeof__(&xmlSetStructuredErrorFunc) set_error_handler;
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
        { (void **)&api.read_memory, "xmlReadMemory" },
        { (void **)&api.free_doc, "xmlFreeDoc" },
        { (void **)&api.last_error, "xmlGetLastError" },
        { (void **)&api.reset_error, "xmlResetLastError" },
        { (void **)&api.line_of, "xmlGetLineNo" },
        { (void **)&api.set_error_handler, "xmlSetStructuredErrorFunc" },
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

/// Whether the document declares entities of its own (in an internal DTD).
static int declares_entities(xmlDocPtr doc) {
    xmlDtdPtr dtd = doc->intSubset;
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

mp_xml_doc *mp_xml_parse(const char *bytes, size_t length, mp_xml_error *error) {
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
        return NULL;
    }
    api.reset_error();
    // No NOENT (entities stay references: no expansion, no external
    // entity), no DTDLOAD, NONET; errors to the handler, never printed
    // (the handler is this thread's: libxml2 keeps it per thread); lines
    // past 65535 kept.
    int options = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES | XML_PARSE_COMPACT;
    api.set_error_handler(error, keep_first_error);
    xmlDocPtr doc = api.read_memory(bytes, (int)length, NULL, NULL, options);
    api.set_error_handler(NULL, NULL);
    if (doc == NULL) {
        if (error->line == 0) {
            const xmlError *last = api.last_error();
            copy_message(error->message, sizeof error->message, last ? last->message : NULL);
            error->line = last && last->line > 0 ? last->line : 1;
            error->column = last && last->int2 > 0 ? last->int2 : 1;
        }
        return NULL;
    }
    memset(error, 0, sizeof *error);
    if (declares_entities(doc)) {
        api.free_doc(doc);
        snprintf(error->message, sizeof error->message, "the document declares entities of its own (<!ENTITY>), which mediaplay does not expand");
        error->line = 1;
        error->column = 1;
        return NULL;
    }
    return (mp_xml_doc *)doc;
}

void mp_xml_free(mp_xml_doc *doc) {
    if (doc != NULL && api.loaded) api.free_doc((xmlDocPtr)doc);
}

mp_xml_node *mp_xml_root(mp_xml_doc *doc) {
    for (xmlNodePtr node = ((xmlDocPtr)doc)->children; node != NULL; node = node->next) {
        if (node->type == XML_ELEMENT_NODE) return (mp_xml_node *)node;
    }
    return NULL;
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
