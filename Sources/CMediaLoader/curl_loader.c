// CCurl's typed wrappers of libcurl's variadic calls, loading libcurl on the
// first call as every other libcurl function here does (media_loader.c).
// Each calls the variadic function through its own declared type, with the
// one argument of the type its option takes.

#include "media_loader_headers.h"
#include "../CCurl/shim.h"

typedef CURLcode (*mp_easy_setopt)(CURL *, CURLoption, ...);
typedef CURLcode (*mp_easy_getinfo)(CURL *, CURLINFO, ...);
typedef CURLMcode (*mp_multi_setopt)(CURLM *, CURLMoption, ...);

static void *_Atomic easy_setopt_slot, *_Atomic easy_getinfo_slot, *_Atomic multi_setopt_slot;

static mp_easy_setopt easy_setopt(void) {
    return (mp_easy_setopt)mp_media_function(MP_CURL, "curl_easy_setopt", &easy_setopt_slot);
}

static mp_easy_getinfo easy_getinfo(void) {
    return (mp_easy_getinfo)mp_media_function(MP_CURL, "curl_easy_getinfo", &easy_getinfo_slot);
}

CURLcode mp_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return easy_setopt()(handle, option, value);
}
CURLcode mp_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return easy_setopt()(handle, option, value);
}
CURLcode mp_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return easy_setopt()(handle, option, value);
}
CURLcode mp_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return easy_setopt()(handle, option, value);
}
CURLcode mp_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return easy_setopt()(handle, option, value);
}
CURLcode mp_curl_easy_setopt_write_function(CURL *handle, curl_write_callback value) {
    return easy_setopt()(handle, CURLOPT_WRITEFUNCTION, value);
}
CURLcode mp_curl_easy_setopt_header_function(CURL *handle, curl_write_callback value) {
    return easy_setopt()(handle, CURLOPT_HEADERFUNCTION, value);
}
CURLcode mp_curl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value) {
    return easy_setopt()(handle, CURLOPT_XFERINFOFUNCTION, value);
}

CURLcode mp_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return easy_getinfo()(handle, info, value);
}
CURLcode mp_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return easy_getinfo()(handle, info, value);
}
CURLcode mp_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return easy_getinfo()(handle, info, value);
}
CURLcode mp_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return easy_getinfo()(handle, info, value);
}

CURLMcode mp_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return ((mp_multi_setopt)mp_media_function(MP_CURL, "curl_multi_setopt", &multi_setopt_slot))(handle, option, value);
}

curl_version_info_data *mp_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

CURLcode mp_curl_global_init_all(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}
