#ifndef MEDIAPLAY_MEDIA_LOADER_HEADERS_H
#define MEDIAPLAY_MEDIA_LOADER_HEADERS_H

// The libraries' own declarations, which every definition must match.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <SDL2/SDL.h>
#include <curl/curl.h>

/// The libraries loaded on first use.
typedef enum {
    MP_AVUTIL,
    MP_AVCODEC,
    MP_AVFORMAT,
    MP_SWRESAMPLE,
    MP_SWSCALE,
    MP_SDL2,
    MP_CURL,
    MP_MEDIA_LIBRARY_COUNT
} mp_media_library;

/// `name` of `library`, kept in `slot` after the first call; a library or
/// function that cannot be found ends the process with one line (exit 69).
void *mp_media_function(mp_media_library library, const char *name, void *_Atomic *slot);

#endif
