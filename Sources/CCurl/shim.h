#ifndef MEDIAPLAY_CCURL_SHIM_H
#define MEDIAPLAY_CCURL_SHIM_H

#include <curl/curl.h>

// libcurl is not linked: CMediaLoader defines the functions the code calls
// (libcurl's own, as its header declares them, and the wrappers below), each
// loading libcurl with dlopen on its first call. A process that asks no
// server never maps libcurl and the 25 libraries it needs (5 ms of a start).
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic and do
// not import into Swift. One typed wrapper per argument type (curl_loader.c).

CURLcode mp_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode mp_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode mp_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode mp_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode mp_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode mp_curl_easy_setopt_write_function(CURL *handle, curl_write_callback value);
CURLcode mp_curl_easy_setopt_header_function(CURL *handle, curl_write_callback value);
CURLcode mp_curl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value);

CURLcode mp_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode mp_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode mp_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode mp_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

CURLMcode mp_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

/// CURLVERSION_NOW names the newest struct layout this header knows.
curl_version_info_data *mp_curl_version_info(void);

/// CURL_GLOBAL_ALL is an OR of other macros.
CURLcode mp_curl_global_init_all(void);

#endif
