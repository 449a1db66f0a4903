#ifndef MEDIAPLAY_MEDIA_LOADER_H
#define MEDIAPLAY_MEDIA_LOADER_H

// Nothing to call here: this target defines FFmpeg's and SDL2's own
// functions (media_loader_functions.c), as their headers declare them, and
// a target that calls them depends on it instead of linking the libraries.

#endif
