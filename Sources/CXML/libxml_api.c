#include "libxml_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct libxml_api libxml;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;

static void load(void) {
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(libxml.failure, sizeof libxml.failure, "cannot load libxml2 (%s); install libxml2", dlerror());
        return;
    }
    struct { void **slot; const char *name; } symbols[] = {
        { (void **)&libxml.init, "xmlInitParser" },
        { (void **)&libxml.reader_for_memory, "xmlReaderForMemory" },
        { (void **)&libxml.reader_walker, "xmlReaderWalker" },
        { (void **)&libxml.read_memory, "xmlReadMemory" },
        { (void **)&libxml.free_doc, "xmlFreeDoc" },
        { (void **)&libxml.root_element, "xmlDocGetRootElement" },
        { (void **)&libxml.free_reader, "xmlFreeTextReader" },
        { (void **)&libxml.read, "xmlTextReaderRead" },
        { (void **)&libxml.next, "xmlTextReaderNext" },
        { (void **)&libxml.depth, "xmlTextReaderDepth" },
        { (void **)&libxml.node_type, "xmlTextReaderNodeType" },
        { (void **)&libxml.current_node, "xmlTextReaderCurrentNode" },
        { (void **)&libxml.expand, "xmlTextReaderExpand" },
        { (void **)&libxml.set_error_handler, "xmlTextReaderSetStructuredErrorHandler" },
        { (void **)&libxml.line_of, "xmlGetLineNo" },
        { (void **)&libxml.set_generic_error, "xmlSetGenericErrorFunc" },
        { (void **)&libxml.set_thread_error_handler, "xmlSetStructuredErrorFunc" },
        { (void **)&libxml.html_entity, "htmlEntityLookup" },
        { (void **)&libxml.memory_parser, "xmlCreateMemoryParserCtxt" },
        { (void **)&libxml.use_options, "xmlCtxtUseOptions" },
        { (void **)&libxml.parse_document, "xmlParseDocument" },
        { (void **)&libxml.free_parser, "xmlFreeParserCtxt" },
        { (void **)&libxml.stop_parser, "xmlStopParser" },
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(libxml.failure, sizeof libxml.failure, "libxml2 has no %s", symbols[i].name);
            return;
        }
    }
    // Once, before any thread parses (libxml2's rule).
    libxml.init();
    loaded = 1;
}

int libxml_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}
