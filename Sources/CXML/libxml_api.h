#ifndef MEDIAPLAY_LIBXML_API_H
#define MEDIAPLAY_LIBXML_API_H

// CXML's own: the libxml2 functions its readers call, found with dlsym the
// first time one is needed (types from libxml2's headers), so a program
// that reads no XML never maps libxml2.

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

struct libxml_api {
    __typeof__(&xmlInitParser) init;
    __typeof__(&xmlReaderForMemory) reader_for_memory;
    __typeof__(&xmlReaderWalker) reader_walker;
    __typeof__(&xmlReadMemory) read_memory;
    __typeof__(&xmlFreeDoc) free_doc;
    __typeof__(&xmlDocGetRootElement) root_element;
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
    __typeof__(&htmlEntityLookup) html_entity;
    // A document read by SAX (DIDL-Lite): no tree is made.
    __typeof__(&xmlCreateMemoryParserCtxt) memory_parser;
    __typeof__(&xmlCtxtUseOptions) use_options;
    __typeof__(&xmlParseDocument) parse_document;
    __typeof__(&xmlFreeParserCtxt) free_parser;
    __typeof__(&xmlStopParser) stop_parser;
    /// Why libxml2 could not be loaded, one line.
    char failure[256];
};

extern struct libxml_api libxml;

/// Loads libxml2 once (any thread); 1 when its functions are there, else 0
/// with `libxml.failure` said.
int libxml_load(void);

#endif
