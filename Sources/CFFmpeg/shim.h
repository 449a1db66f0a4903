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
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// Function-like macros do not import into Swift; these wrap them.

/// AVERROR(e): FFmpeg's negative error code for a POSIX errno value.
static inline int mp_averror(int e) { return AVERROR(e); }

/// AVERROR(EAGAIN): "output not ready, feed more input" from send/receive.
static inline int mp_averror_eagain(void) { return AVERROR(EAGAIN); }

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
