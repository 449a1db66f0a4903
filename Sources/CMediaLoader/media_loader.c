// FFmpeg, SDL2 and libcurl are loaded when first called, not when a program
// starts: linked, they and the libraries they need (about 100: codecs, X11,
// Wayland, PulseAudio, TLS, Kerberos, LDAP, ...) were mapped and relocated by
// every process, 30 ms of each start (libcurl's 5), though `list`, `status`
// and most other commands never decode, and many ask no server
// (docs/ARCHITECTURE.md). media_loader_functions.c defines
// each function the programs call; its first call lands here.

#include "media_loader_headers.h"
#include "media_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MP_SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

/// Each library by the major version the headers were built against.
static const char *const sonames[MP_MEDIA_LIBRARY_COUNT] = {
    [MP_AVUTIL] = MP_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    [MP_AVCODEC] = MP_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    [MP_AVFORMAT] = MP_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
    [MP_SWRESAMPLE] = MP_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
    [MP_SWSCALE] = MP_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
    [MP_SDL2] = "libSDL2-2.0.so.0",
    // libcurl's soname has kept major 4 since 2006 (the header says 7 or 8).
    [MP_CURL] = "libcurl.so.4",
};

static void *_Atomic handles[MP_MEDIA_LIBRARY_COUNT];
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

static void (*_Atomic before_exit)(void);

void mp_media_on_missing(void (*hook)(void)) {
    atomic_store(&before_exit, hook);
}

/// The one line a broken install gets, then exit 69 (EX_UNAVAILABLE): no
/// call can go on without its library. The program's hook first (the
/// terminal back), so the line is seen.
static _Noreturn void mp_media_missing(const char *what) {
    // One thread ends the process: another that finds a library missing
    // meanwhile waits here for the exit, never cutting the hook short (and
    // the hook's own thread, should it fail again inside it, just ends).
    static pthread_mutex_t exiting = PTHREAD_MUTEX_INITIALIZER;
    static _Thread_local int ending;
    if (ending) _exit(69);
    ending = 1;
    pthread_mutex_lock(&exiting);
    void (*hook)(void) = atomic_exchange(&before_exit, NULL);
    if (hook != NULL) hook();
    fprintf(stderr, "mediaplay: cannot load %s (reinstall mediaplay's libraries: scripts/install-deps.sh, or apt install mediaplay)\n", what);
    fflush(stderr);
    _exit(69);
}

static void *mp_media_handle(mp_media_library library) {
    void *handle = atomic_load_explicit(&handles[library], memory_order_acquire);
    if (handle != NULL) return handle;
    pthread_mutex_lock(&loading);
    handle = atomic_load_explicit(&handles[library], memory_order_relaxed);
    if (handle == NULL) {
        // Bound lazily, as a linked library was; local, so nothing loaded
        // later binds to these by accident.
        handle = dlopen(sonames[library], RTLD_LAZY | RTLD_LOCAL);
        if (handle == NULL) {
            const char *reason = dlerror();
            pthread_mutex_unlock(&loading);
            mp_media_missing(reason != NULL ? reason : sonames[library]);
        }
        atomic_store_explicit(&handles[library], handle, memory_order_release);
    }
    pthread_mutex_unlock(&loading);
    return handle;
}

void *mp_media_function(mp_media_library library, const char *name, void *_Atomic *slot) {
    void *function = atomic_load_explicit(slot, memory_order_acquire);
    if (function != NULL) return function;
    function = dlsym(mp_media_handle(library), name);
    if (function == NULL) {
        char what[256];
        snprintf(what, sizeof what, "%s from %s", name, sonames[library]);
        mp_media_missing(what);
    }
    atomic_store_explicit(slot, function, memory_order_release);
    return function;
}
