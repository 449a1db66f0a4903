#ifndef MEDIAPLAY_MEDIA_LOADER_H
#define MEDIAPLAY_MEDIA_LOADER_H

// This target defines FFmpeg's and SDL2's own functions
// (media_loader_functions.c), as their headers declare them, and a target
// that calls them depends on it instead of linking the libraries.

/// `before_exit` runs once, on the thread that found a library missing,
/// before its one line and exit 69: a program puts back there what must not
/// outlive it (a terminal in raw mode). It must not call FFmpeg or SDL.
void mp_media_on_missing(void (*before_exit)(void));

#endif
