#include "mp_upnp.h"
#include "libxml_api.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// The elements whose text is read; any other's text is not kept.
enum field {
    FIELD_NONE,
    // A Browse answer's envelope.
    FIELD_FAULT_STRING, FIELD_ERROR_CODE, FIELD_ERROR_DESCRIPTION, FIELD_RESULT, FIELD_RETURNED, FIELD_TOTAL,
    // An item's children.
    FIELD_TITLE, FIELD_CLASS, FIELD_ARTIST, FIELD_ALBUM, FIELD_TRACK, FIELD_ART, FIELD_RES,
};

/// One SAX reading: the text every span points into, where the element
/// being read stands, and the first error.
typedef struct {
    char **text;
    size_t *text_length;
    size_t text_capacity;
    /// Elements open: 1 inside the root.
    int depth;
    /// The element whose text is gathered (its descendants' too): which,
    /// its depth, and where its bytes start in `text` (an element not kept
    /// is taken back).
    enum field field;
    int field_depth;
    size_t field_start;
    /// Its text so far starts here (after a `res`'s attributes).
    size_t text_start;
    /// The first error that ends the reading (line 0: none).
    mp_xml_error error;
    xmlParserCtxtPtr parser;

    // The envelope.
    mp_browse_answer *answer;
    /// Inside the Body (depth 2), an answer that is no fault, or the first fault (depth 3).
    int in_body, in_answer, in_fault;

    // The DIDL-Lite.
    mp_didl *didl;
    size_t entries_capacity;
    /// Inside an item or container that is kept (depth 2).
    int in_entry;
    mp_didl_entry entry;
    mp_span res_mime, res_duration;
} reading;

static const mp_span absent = { 0, -1 };

static void stop(reading *r, const char *message) {
    if (r->error.line == 0) {
        snprintf(r->error.message, sizeof r->error.message, "%s", message);
        r->error.line = 1;
        r->error.column = 1;
    }
    libxml.stop_parser(r->parser);
}

static int grow_text(reading *r, size_t more) {
    if (*r->text_length + more <= r->text_capacity) return 1;
    size_t capacity = r->text_capacity ? r->text_capacity : 4096;
    while (*r->text_length + more > capacity) {
        if (capacity > SIZE_MAX / 2) return 0;
        capacity *= 2;
    }
    char *grown = realloc(*r->text, capacity);
    if (grown == NULL) return 0;
    *r->text = grown;
    r->text_capacity = capacity;
    return 1;
}

static void append(reading *r, const char *bytes, size_t length) {
    if (length == 0 || r->error.line != 0) return;
    if (!grow_text(r, length)) {
        stop(r, "out of memory reading the server's answer");
        return;
    }
    memcpy(*r->text + *r->text_length, bytes, length);
    *r->text_length += length;
}

/// The length of the white space character (Unicode's White_Space, as
/// Swift's `isWhitespace` tells it) whose UTF-8 starts at `at`, or 0.
static size_t space_at(const unsigned char *at, size_t left) {
    unsigned char c = at[0];
    if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return 1;
    if (c == 0xC2 && left >= 2 && (at[1] == 0x85 || at[1] == 0xA0)) return 2;
    if (left < 3) return 0;
    if (c == 0xE1 && at[1] == 0x9A && at[2] == 0x80) return 3;
    if (c == 0xE2 && at[1] == 0x80 && (at[2] <= 0x8A || at[2] == 0xA8 || at[2] == 0xA9 || at[2] == 0xAF) && at[2] >= 0x80) return 3;
    if (c == 0xE2 && at[1] == 0x81 && at[2] == 0x9F) return 3;
    if (c == 0xE3 && at[1] == 0x80 && at[2] == 0x80) return 3;
    return 0;
}

/// The length of the white space character that ends at `end` (after
/// `first`), or 0: its first byte is found by stepping back over UTF-8's
/// continuation bytes.
static size_t space_before(const unsigned char *text, size_t first, size_t end) {
    size_t lead = end - 1;
    while (lead > first && end - lead < 3 && (text[lead] & 0xC0) == 0x80) lead--;
    size_t length = space_at(text + lead, end - lead);
    return length == end - lead ? length : 0;
}

/// The bytes from `start` to the end of `text`, without white space at
/// their ends (Unicode's, as the stream reader trimmed a field's text; a
/// little more than it trimmed an envelope's Result); absent when nothing
/// is left.
static mp_span trimmed(reading *r, size_t start) {
    const unsigned char *text = (const unsigned char *)*r->text;
    size_t first = start, end = *r->text_length, length;
    while (first < end && (length = space_at(text + first, end - first)) > 0) first += length;
    while (end > first && (length = space_before(text, first, end)) > 0) end -= length;
    if (first == end) return absent;
    return (mp_span){ (long)first, (long)(end - first) };
}

/// Starts gathering the text of the element just opened.
static void gather(reading *r, enum field field) {
    r->field = field;
    r->field_depth = r->depth;
    r->field_start = r->text_start = *r->text_length;
}

/// The gathered text, the element at an end (nothing kept until `keep`).
static mp_span gathered(reading *r) {
    r->field = FIELD_NONE;
    return trimmed(r, r->text_start);
}

/// Text and CDATA: kept while an element's text is gathered.
static void on_text(void *context, const xmlChar *bytes, int length) {
    reading *r = context;
    if (r->field != FIELD_NONE && length > 0) append(r, (const char *)bytes, (size_t)length);
}

static void on_document_type(void *context, const xmlChar *name, const xmlChar *external, const xmlChar *system) {
    (void)name, (void)external, (void)system;
    stop(context, "the document has a document type");
}

/// The first error that ends the reading; a prefix never declared is read
/// past, as the stream reader reads past it.
static void on_error(void *context, xmlErrorPtr raised) {
    reading *r = context;
    if (raised == NULL || raised->level < XML_ERR_ERROR || raised->domain == XML_FROM_NAMESPACE || r->error.line != 0) return;
    snprintf(r->error.message, sizeof r->error.message, "%s", raised->message ? raised->message : "not well-formed XML");
    for (char *c = r->error.message; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    size_t length = strlen(r->error.message);
    while (length > 0 && r->error.message[length - 1] == ' ') r->error.message[--length] = 0;
    r->error.line = raised->line > 0 ? raised->line : 1;
    r->error.column = raised->int2 > 0 ? raised->int2 : 1;
    r->error.code = raised->code;
    r->error.domain = raised->domain;
}

static void print_nothing(void *context, const char *format, ...) {
    (void)context, (void)format;
}

static void fail(mp_xml_error *error, const char *message) {
    snprintf(error->message, sizeof error->message, "%s", message);
    error->line = error->column = 1;
}

/// Reads `bytes` with the element callbacks given: 1, or 0 with `error` filled.
static int run(reading *r, const char *bytes, size_t length, startElementNsSAX2Func start, endElementNsSAX2Func end, mp_xml_error *error) {
    memset(error, 0, sizeof *error);
    if (!libxml_load()) {
        fail(error, libxml.failure);
        return 0;
    }
    if (length > (size_t)0x7fffffff) {
        fail(error, "the document is larger than 2 GiB");
        return 0;
    }
    // Decoded UTF-8 is seldom longer than the document: one allocation for
    // most readings.
    if (!grow_text(r, length + 1)) {
        fail(error, "out of memory reading the server's answer");
        return 0;
    }
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = start;
    handler.endElementNs = end;
    handler.characters = on_text;
    handler.cdataBlock = on_text;
    handler.ignorableWhitespace = on_text;
    handler.internalSubset = on_document_type;
    handler.externalSubset = on_document_type;
    handler.serror = on_error;
    // No getEntity: an entity other than XML's five is an error, never looked up.
    xmlParserCtxtPtr parser = libxml.memory_parser(bytes, (int)length);
    if (parser == NULL) {
        fail(error, "libxml2 could not start reading");
        return 0;
    }
    r->parser = parser;
    // Ours for this reading; libxml2's own put back before the context is freed.
    xmlSAXHandlerPtr own = parser->sax;
    parser->sax = &handler;
    parser->userData = r;
    // No NOENT, no DTDLOAD, NONET; errors to the handler above, never printed.
    libxml.use_options(parser, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR | XML_PARSE_BIG_LINES);
    // Errors with no parser to tie them to (an encoding that cannot be
    // converted) go to this thread's handlers: here, to this reading.
    libxml.set_generic_error(NULL, print_nothing);
    libxml.set_thread_error_handler(r, on_error);
    libxml.parse_document(parser);
    libxml.set_thread_error_handler(NULL, NULL);
    libxml.set_generic_error(NULL, NULL);
    int well_formed = parser->wellFormed;
    parser->sax = own;
    libxml.free_parser(parser);
    if (r->error.line == 0 && !well_formed) fail(&r->error, "not well-formed XML");
    if (r->error.line == 0 && r->depth != 0) fail(&r->error, "the document ends inside an element");
    *error = r->error;
    return r->error.line == 0;
}

// MARK: - The envelope

static void envelope_start(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int namespaces_count,
                           const xmlChar **namespaces, int attributes_count, int defaulted_count, const xmlChar **attributes) {
    (void)prefix, (void)uri, (void)namespaces_count, (void)namespaces, (void)attributes_count, (void)defaulted_count, (void)attributes;
    reading *r = context;
    const char *name = (const char *)local;
    r->depth++;
    if (r->field != FIELD_NONE) return;
    if (r->depth == 2) {
        r->in_body = strcmp(name, "Body") == 0;
    } else if (r->depth == 3 && r->in_body) {
        if (strcmp(name, "Fault") != 0) {
            r->in_answer = 1;
        } else if (!r->answer->fault) {
            r->answer->fault = 1;
            r->in_fault = 1;
        }
    } else if (r->depth > 3 && r->in_fault) {
        if (strcmp(name, "faultstring") == 0) gather(r, FIELD_FAULT_STRING);
        else if (strcmp(name, "errorCode") == 0) gather(r, FIELD_ERROR_CODE);
        else if (strcmp(name, "errorDescription") == 0) gather(r, FIELD_ERROR_DESCRIPTION);
    } else if (r->depth == 4 && r->in_answer) {
        if (strcmp(name, "Result") == 0) gather(r, FIELD_RESULT);
        else if (strcmp(name, "NumberReturned") == 0) gather(r, FIELD_RETURNED);
        else if (strcmp(name, "TotalMatches") == 0) gather(r, FIELD_TOTAL);
    }
}

static void envelope_end(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
    (void)local, (void)prefix, (void)uri;
    reading *r = context;
    if (r->field != FIELD_NONE && r->depth == r->field_depth) {
        enum field field = r->field;
        mp_span text = gathered(r);
        mp_browse_answer *answer = r->answer;
        if (field == FIELD_FAULT_STRING) answer->fault_string = text;
        else if (field == FIELD_ERROR_CODE) answer->error_code = text;
        else if (field == FIELD_ERROR_DESCRIPTION) answer->error_description = text;
        else if (field == FIELD_RESULT) answer->result = text;
        else if (field == FIELD_RETURNED) answer->returned = text;
        else if (field == FIELD_TOTAL) answer->total = text;
    }
    if (r->depth == 3) r->in_answer = r->in_fault = 0;
    if (r->depth == 2) r->in_body = 0;
    r->depth--;
}

int mp_browse_answer_read(const char *bytes, size_t length, mp_browse_answer *answer, mp_xml_error *error) {
    memset(answer, 0, sizeof *answer);
    answer->fault_string = answer->error_code = answer->error_description = absent;
    answer->result = answer->returned = answer->total = absent;
    reading r = { .text = &answer->text, .text_length = &answer->text_length, .answer = answer };
    return run(&r, bytes, length, envelope_start, envelope_end, error);
}

void mp_browse_answer_free(mp_browse_answer *answer) {
    free(answer->text);
    memset(answer, 0, sizeof *answer);
}

// MARK: - DIDL-Lite

/// An attribute's value (by local name, any namespace) copied into `text`, trimmed.
static mp_span attribute(reading *r, int count, const xmlChar **attributes, const char *name) {
    for (int i = 0; i < count; i++) {
        const xmlChar **attribute = attributes + i * 5;
        if (strcmp((const char *)attribute[0], name) != 0) continue;
        size_t start = *r->text_length;
        append(r, (const char *)attribute[3], (size_t)(attribute[4] - attribute[3]));
        // Without entity substitution, libxml2 hands SAX an attribute's `&`
        // (written `&amp;` or `&#38;`) as the five bytes `&#38;`, for a tree
        // builder to undo: undone here. Every `&` it hands over is so written.
        char *text = *r->text;
        size_t to = start;
        for (size_t from = start; from < *r->text_length; to++) {
            int ampersand = text[from] == '&' && *r->text_length - from >= 5 && memcmp(text + from, "&#38;", 5) == 0;
            text[to] = text[from];
            from += ampersand ? 5 : 1;
        }
        *r->text_length = to;
        return trimmed(r, start);
    }
    return absent;
}

/// The third field of a protocolInfo, within its span.
static mp_span third_field(reading *r, mp_span info) {
    if (info.length < 0) return absent;
    const char *text = *r->text + info.offset;
    long colons = 0, at = 0;
    while (at < info.length && colons < 2) {
        if (text[at++] == ':') colons++;
    }
    if (colons < 2) return absent;
    long end = at;
    while (end < info.length && text[end] != ':') end++;
    return (mp_span){ info.offset + at, end - at };
}

static int starts_with_http(reading *r, mp_span url) {
    return url.length >= 4 && strncasecmp(*r->text + url.offset, "http", 4) == 0;
}

static enum field item_field(const char *name) {
    if (strcmp(name, "title") == 0) return FIELD_TITLE;
    if (strcmp(name, "class") == 0) return FIELD_CLASS;
    if (strcmp(name, "artist") == 0 || strcmp(name, "creator") == 0) return FIELD_ARTIST;
    if (strcmp(name, "album") == 0) return FIELD_ALBUM;
    if (strcmp(name, "originalTrackNumber") == 0) return FIELD_TRACK;
    if (strcmp(name, "albumArtURI") == 0) return FIELD_ART;
    if (strcmp(name, "res") == 0) return FIELD_RES;
    return FIELD_NONE;
}

static void didl_start(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int namespaces_count,
                       const xmlChar **namespaces, int attributes_count, int defaulted_count, const xmlChar **attributes) {
    (void)prefix, (void)uri, (void)namespaces_count, (void)namespaces, (void)defaulted_count;
    reading *r = context;
    const char *name = (const char *)local;
    r->depth++;
    if (r->depth == 1) {
        if (strcmp(name, "DIDL-Lite") != 0) stop(r, "the root element is not DIDL-Lite");
    } else if (r->depth == 2) {
        int container = strcmp(name, "container") == 0;
        if (!container && strcmp(name, "item") != 0) return;
        size_t start = *r->text_length;
        mp_span id = attribute(r, attributes_count, attributes, "id");
        if (id.length < 0 || id.length > 1000) {
            *r->text_length = start;
            return;
        }
        r->in_entry = 1;
        r->entry = (mp_didl_entry){ container, id, absent, absent, absent, absent, absent, absent, absent, absent, absent };
    } else if (r->depth == 3 && r->in_entry) {
        enum field field = item_field(name);
        if (field == FIELD_NONE) return;
        size_t start = *r->text_length;
        if (field == FIELD_RES) {
            r->res_mime = third_field(r, attribute(r, attributes_count, attributes, "protocolInfo"));
            r->res_duration = attribute(r, attributes_count, attributes, "duration");
        }
        gather(r, field);
        r->field_start = start;
    }
}

/// A child of an item ends: its text kept where the field takes it.
static void end_field(reading *r) {
    mp_didl_entry *entry = &r->entry;
    enum field field = r->field;
    mp_span text = gathered(r);
    int kept = 0;
    switch (field) {
    case FIELD_TITLE:
        if (text.length >= 0) entry->title = text, kept = 1;
        break;
    case FIELD_CLASS:
        entry->upnp_class = text.length >= 0 ? text : (mp_span){ 0, 0 };
        kept = text.length >= 0;
        break;
    case FIELD_ARTIST:
        if (entry->artist.length < 0 && text.length >= 0) entry->artist = text, kept = 1;
        break;
    case FIELD_ALBUM:
        entry->album = text;
        kept = text.length >= 0;
        break;
    case FIELD_TRACK:
        entry->track = text;
        kept = text.length >= 0;
        break;
    case FIELD_ART:
        if (entry->album_art.length < 0 && text.length >= 0) entry->album_art = text, kept = 1;
        break;
    case FIELD_RES:
        if (text.length < 0) break;
        if (entry->url.length < 0 || (!starts_with_http(r, entry->url) && starts_with_http(r, text))) {
            entry->url = text;
            entry->mime = r->res_mime;
            entry->duration = r->res_duration;
            kept = 1;
        }
        break;
    default:
        break;
    }
    if (!kept) *r->text_length = r->field_start;
}

static void didl_end(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
    (void)local, (void)prefix, (void)uri;
    reading *r = context;
    if (r->field != FIELD_NONE && r->depth == r->field_depth) {
        end_field(r);
    } else if (r->depth == 2 && r->in_entry) {
        r->in_entry = 0;
        mp_didl *didl = r->didl;
        if (didl->count == r->entries_capacity) {
            size_t capacity = r->entries_capacity ? r->entries_capacity * 2 : 256;
            mp_didl_entry *grown = capacity < SIZE_MAX / sizeof *grown ? realloc(didl->entries, capacity * sizeof *grown) : NULL;
            if (grown == NULL) {
                stop(r, "out of memory reading DIDL-Lite");
                return;
            }
            didl->entries = grown;
            r->entries_capacity = capacity;
        }
        didl->entries[didl->count++] = r->entry;
    }
    r->depth--;
}

int mp_didl_read(const char *bytes, size_t length, mp_didl *didl, mp_xml_error *error) {
    memset(didl, 0, sizeof *didl);
    reading r = { .text = &didl->text, .text_length = &didl->text_length, .didl = didl };
    return run(&r, bytes, length, didl_start, didl_end, error);
}

void mp_didl_free(mp_didl *didl) {
    free(didl->entries);
    free(didl->text);
    memset(didl, 0, sizeof *didl);
}
