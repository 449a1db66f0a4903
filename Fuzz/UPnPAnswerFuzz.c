// A UPnP server's Browse answer, from anyone on the network: read as the
// SOAP envelope, then its Result (or the whole input) as DIDL-Lite. Every
// span a reading gives must lie inside the text it points into.
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_upnp.h"

static void check(mp_span span, size_t length) {
    if (span.length < 0) return;
    assert(span.offset >= 0 && (size_t)span.offset <= length && (size_t)span.length <= length - (size_t)span.offset);
}

static void read_didl(const char *bytes, size_t length) {
    mp_didl didl;
    mp_xml_error error;
    if (mp_didl_read(bytes, length, &didl, &error)) {
        for (size_t i = 0; i < didl.count; i++) {
            const mp_didl_entry *e = &didl.entries[i];
            mp_span spans[] = { e->id, e->title, e->upnp_class, e->artist, e->album, e->track, e->album_art, e->url, e->mime, e->duration };
            for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++) check(spans[s], didl.text_length);
            assert(e->id.length >= 0 && e->id.length <= 1000);
        }
    } else {
        assert(error.line != 0);
    }
    mp_didl_free(&didl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *bytes = (const char *)data;
    mp_browse_answer answer;
    mp_xml_error error;
    if (mp_browse_answer_read(bytes, size, &answer, &error)) {
        mp_span spans[] = { answer.fault_string, answer.error_code, answer.error_description, answer.result, answer.returned, answer.total };
        for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++) check(spans[s], answer.text_length);
        if (answer.result.length >= 0) read_didl(answer.text + answer.result.offset, (size_t)answer.result.length);
    }
    mp_browse_answer_free(&answer);
    read_didl(bytes, size);
    return 0;
}
