#ifndef MEDIAPLAY_CSDL2_SHIM_H
#define MEDIAPLAY_CSDL2_SHIM_H

#include <SDL2/SDL.h>

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

#endif
