#ifndef MEDIAPLAY_CFFMPEG_SHIM_H
#define MEDIAPLAY_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/display.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

#include <string.h>

/// What a format context may open by itself (its `opaque`): only the main
/// input's own URL (the image2 demuxer reopens its file per frame), never
/// anything else. A playlist (HLS, DASH, concat) or an MP4 reference would
/// otherwise make FFmpeg read local files or fetch URLs outside libcurl's
/// rules and the cache (docs/FEED.md).
typedef struct {
    /// The one URL that may be opened again, or NULL: none.
    const char *allowed;
    /// Set when an open was refused, with the URL it asked for.
    int refused;
    char refusedURL[512];
} mp_io_policy;

static inline int mp_io_open_guarded(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    mp_io_policy *policy = (mp_io_policy *)s->opaque;
    if (policy == NULL || policy->allowed == NULL || url == NULL || strcmp(url, policy->allowed) != 0 || (flags & AVIO_FLAG_WRITE)) {
        if (policy != NULL && !policy->refused) {
            policy->refused = 1;
            strncpy(policy->refusedURL, url ? url : "", sizeof(policy->refusedURL) - 1);
            policy->refusedURL[sizeof(policy->refusedURL) - 1] = 0;
        }
        return AVERROR(EPERM);
    }
    AVDictionary *local = NULL;
    if (options != NULL && *options != NULL) av_dict_copy(&local, *options, 0);
    av_dict_set(&local, "protocol_whitelist", "file", 0);
    int result = avio_open2(pb, url, flags, &s->interrupt_callback, &local);
    av_dict_free(&local);
    return result;
}

/// Installs the guard on a context before it is opened.
static inline void mp_guard_io(AVFormatContext *context, mp_io_policy *policy) {
    context->opaque = policy;
    context->io_open = mp_io_open_guarded;
}

// Function-like macros do not import into Swift; these wrap them.

/// AVERROR(e): FFmpeg's negative error code for a POSIX errno value.
static inline int mp_averror(int e) { return AVERROR(e); }

/// AVERROR(EAGAIN): "output not ready, feed more input" from send/receive.
static inline int mp_averror_eagain(void) { return AVERROR(EAGAIN); }

/// AVERROR_INVALIDDATA: "invalid data found when processing input".
static inline int mp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }

/// AVERROR_EOF: end of stream (built with the FFERRTAG macro).
static inline int mp_averror_eof(void) { return AVERROR_EOF; }

/// AV_NOPTS_VALUE: "no timestamp".
static inline int64_t mp_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/// AV_TIME_BASE_Q is a compound literal, not importable.
static inline AVRational mp_av_time_base_q(void) { AVRational q = { 1, AV_TIME_BASE }; return q; }

/// AV_CHANNEL_LAYOUT_MONO / _STEREO are compound-literal initialisers.
static inline AVChannelLayout mp_channel_layout_mono(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_MONO;
    return layout;
}
static inline AVChannelLayout mp_channel_layout_stereo(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_STEREO;
    return layout;
}

/// av_err2str is a macro over a stack buffer; callers pass their own buffer.
static inline int mp_av_strerror(int code, char *buffer, size_t size) {
    return av_strerror(code, buffer, size);
}

#endif
