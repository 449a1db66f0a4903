#ifndef MEDIAPLAY_CSDL2_SHIM_H
#define MEDIAPLAY_CSDL2_SHIM_H

#include <SDL2/SDL.h>
#include <dlfcn.h>

// Function-like macros do not import into Swift; these wrap them.

/// SDL_WINDOWPOS_CENTERED expands through SDL_WINDOWPOS_CENTERED_DISPLAY(0).
static inline int mp_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }

/// SDL_WINDOWPOS_UNDEFINED, likewise.
static inline int mp_sdl_windowpos_undefined(void) { return SDL_WINDOWPOS_UNDEFINED; }

/// AUDIO_S16SYS depends on the host byte order.
static inline SDL_AudioFormat mp_sdl_audio_s16sys(void) { return AUDIO_S16SYS; }

/// SDL_VERSION fills a struct with the compile-time version.
static inline SDL_version mp_sdl_compiled_version(void) {
    SDL_version version;
    SDL_VERSION(&version);
    return version;
}

/// alsa-lib's error handler: says nothing. (Variadic, as alsa-lib calls it.)
static void mp_alsa_say_nothing(const char *file, int line, const char *function, int err, const char *format, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)format;
}

/// Silences the sound libraries' own messages on stderr: alsa-lib prints
/// eight "ALSA lib ..." lines on a machine without a sound card, and SDL
/// logs its own. mediaplay says what matters in one line of its own. The
/// handler is set on the libasound SDL will load (the same copy, kept
/// loaded); nothing happens where there is no libasound.
static inline void mp_silence_sound_libraries(void) {
    SDL_LogSetAllPriority(SDL_LOG_PRIORITY_CRITICAL);
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (alsa == NULL) return;
    int (*set_handler)(void (*)(const char *, int, const char *, int, const char *, ...)) =
        (int (*)(void (*)(const char *, int, const char *, int, const char *, ...)))dlsym(alsa, "snd_lib_error_set_handler");
    if (set_handler != NULL) set_handler(mp_alsa_say_nothing);
}

#endif
