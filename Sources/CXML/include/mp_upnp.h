#ifndef MEDIAPLAY_UPNP_H
#define MEDIAPLAY_UPNP_H

#include <stddef.h>

#include "mp_xml.h"

/// A UPnP server's answer to Browse read by libxml2's SAX parser straight
/// into flat fields: its SOAP envelope, then the DIDL-Lite inside it. No
/// tree is made (a 10,000-item container made some 200,000 nodes, the
/// larger part of listing it). As safe as `mp_xml_open`: no network, no DTD
/// loaded, no entity substituted; a document type of any kind is refused
/// (neither has one).
///
/// Each field is a span of the reading's `text`: its text (or attribute
/// value) decoded, without white space at its ends; `length` < 0 when the
/// element or attribute is absent or empty.
typedef struct {
    long offset;
    long length;
} mp_span;

/// A Browse answer's envelope: the fields of the answer in its `Body`, by
/// name, whatever their namespace (the last of each).
typedef struct {
    /// A `Fault` is in the body (the server refused), with its
    /// `faultstring` and UPnP's `errorCode` and `errorDescription`.
    int fault;
    mp_span fault_string;
    mp_span error_code;
    mp_span error_description;
    /// The DIDL-Lite, still to read (`mp_didl_read`).
    mp_span result;
    mp_span returned;
    mp_span total;
    char *text;
    size_t text_length;
} mp_browse_answer;

/// Reads `length` bytes of a SOAP envelope into `answer` (free it with
/// `mp_browse_answer_free`, whatever this returns): 1, or 0 with `error`
/// filled when it is not well-formed XML, has a document type, or libxml2
/// cannot be loaded.
int mp_browse_answer_read(const char *bytes, size_t length, mp_browse_answer *answer, mp_xml_error *error);
void mp_browse_answer_free(mp_browse_answer *answer);

/// One `item` or `container` (the root's children), as the element names
/// say, whatever their namespace: `dc:title`, `upnp:class`, …
typedef struct {
    int is_container;
    /// The `id` attribute (an element without one, or with one over 1,000
    /// bytes, is left out).
    mp_span id;
    /// The last `title` with text.
    mp_span title;
    /// The last `class`; present but empty (length 0) when it had no text.
    mp_span upnp_class;
    /// The first `artist` or `creator` with text.
    mp_span artist;
    /// The last `album` (absent when that one had no text).
    mp_span album;
    /// The last `originalTrackNumber` (absent when that one had no text).
    mp_span track;
    /// The first `albumArtURI` with text.
    mp_span album_art;
    /// The resource played: the first `res` whose URL starts with `http`
    /// (DLNA lists the original file first), else the first `res` with text.
    mp_span url;
    /// Its `protocolInfo`'s third field (`http-get:*:audio/mpeg:…`), which
    /// may be empty; absent when the attribute has fewer than two colons.
    mp_span mime;
    /// Its `duration` attribute, as written (`H+:MM:SS[.F]`).
    mp_span duration;
} mp_didl_entry;

typedef struct {
    mp_didl_entry *entries;
    size_t count;
    /// The bytes every span points into.
    char *text;
    size_t text_length;
} mp_didl;

/// Reads `length` bytes of DIDL-Lite into `didl` (free it with
/// `mp_didl_free`, whatever this returns): 1, or 0 with `error` filled when
/// the document is not well-formed XML, its root is not `DIDL-Lite`, it has
/// a document type, or libxml2 cannot be loaded.
int mp_didl_read(const char *bytes, size_t length, mp_didl *didl, mp_xml_error *error);
void mp_didl_free(mp_didl *didl);

#endif
