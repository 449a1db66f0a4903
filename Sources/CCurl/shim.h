#ifndef MEDIAPLAY_CCURL_SHIM_H
#define MEDIAPLAY_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic and do
// not import into Swift. One typed wrapper per argument type.

static inline CURLcode mp_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mp_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mp_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mp_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mp_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mp_curl_easy_setopt_write_function(CURL *handle, curl_write_callback value) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, value);
}
static inline CURLcode mp_curl_easy_setopt_header_function(CURL *handle, curl_write_callback value) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, value);
}
static inline CURLcode mp_curl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode mp_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode mp_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode mp_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode mp_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode mp_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// CURLVERSION_NOW names the newest struct layout this header knows.
static inline curl_version_info_data *mp_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

/// CURL_GLOBAL_ALL is an OR of other macros.
static inline CURLcode mp_curl_global_init_all(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

#endif
