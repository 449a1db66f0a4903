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
#include <libavutil/replaygain.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>

/// libavfilter, loaded only when an item needs its filters (a speed other
/// than 1, or a recording's volume): linked, it and the 31 libraries only it needs (speech voices,
/// Vulkan, OCR, ...) were mapped by every mediaplay-core process, about
/// 11 MiB of each one's memory (docs/PERFORMANCE.md).
typedef struct {
    AVFilterGraph *(*graph_alloc)(void);
    void (*graph_free)(AVFilterGraph **graph);
    const AVFilter *(*get_by_name)(const char *name);
    int (*graph_create_filter)(AVFilterContext **context, const AVFilter *filter, const char *name, const char *arguments, void *opaque, AVFilterGraph *graph);
    AVFilterInOut *(*inout_alloc)(void);
    void (*inout_free)(AVFilterInOut **inout);
    int (*graph_parse_ptr)(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, AVFilterInOut **outputs, void *log);
    int (*graph_config)(AVFilterGraph *graph, void *log);
    int (*buffersrc_add_frame_flags)(AVFilterContext *source, AVFrame *frame, int flags);
    int (*buffersink_get_frame)(AVFilterContext *sink, AVFrame *frame);
    AVFilterContext *(*graph_alloc_filter)(AVFilterGraph *graph, const AVFilter *filter, const char *name);
    int (*init_str)(AVFilterContext *context, const char *arguments);
    int (*link)(AVFilterContext *source, unsigned sourcePad, AVFilterContext *destination, unsigned destinationPad);
} mp_avfilter_api;

/// The library the headers were built against (its major version).
#define MP_AVFILTER_LIBRARY "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

/// Loads libavfilter into `api`; 0, or -1 with the reason in `reason`.
static inline int mp_avfilter_load(mp_avfilter_api *api, char *reason, size_t size) {
    void *library = dlopen(MP_AVFILTER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(reason, size, "%s", dlerror());
        return -1;
    }
    struct { void **slot; const char *name; } symbols[] = {
        { (void **)&api->graph_alloc, "avfilter_graph_alloc" },
        { (void **)&api->graph_free, "avfilter_graph_free" },
        { (void **)&api->get_by_name, "avfilter_get_by_name" },
        { (void **)&api->graph_create_filter, "avfilter_graph_create_filter" },
        { (void **)&api->inout_alloc, "avfilter_inout_alloc" },
        { (void **)&api->inout_free, "avfilter_inout_free" },
        { (void **)&api->graph_parse_ptr, "avfilter_graph_parse_ptr" },
        { (void **)&api->graph_config, "avfilter_graph_config" },
        { (void **)&api->buffersrc_add_frame_flags, "av_buffersrc_add_frame_flags" },
        { (void **)&api->buffersink_get_frame, "av_buffersink_get_frame" },
        { (void **)&api->graph_alloc_filter, "avfilter_graph_alloc_filter" },
        { (void **)&api->init_str, "avfilter_init_str" },
        { (void **)&api->link, "avfilter_link" },
    };
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(reason, size, "%s has no %s", MP_AVFILTER_LIBRARY, symbols[i].name);
            return -1;
        }
    }
    return 0;
}

/// libass (the library libavfilter's subtitles filter draws with), loaded
/// with dlopen when a text subtitle is first drawn into a picture. Its
/// image list is declared here as libass's ass.h declares it (a stable ABI).
typedef struct mp_ass_image {
    int w, h;
    int stride;
    unsigned char *bitmap;
    uint32_t color;
    int dst_x, dst_y;
    struct mp_ass_image *next;
    int type;
} mp_ass_image;

typedef struct {
    void *(*library_init)(void);
    void (*library_done)(void *library);
    void (*set_message_cb)(void *library, void (*callback)(int, const char *, va_list, void *), void *data);
    void (*set_fonts_dir)(void *library, const char *folder);
    void (*set_extract_fonts)(void *library, int extract);
    void (*add_font)(void *library, const char *name, const char *data, int size);
    void *(*renderer_init)(void *library);
    void (*renderer_done)(void *renderer);
    void (*set_frame_size)(void *renderer, int width, int height);
    void (*set_storage_size)(void *renderer, int width, int height);
    void (*set_shaper)(void *renderer, int level);
    void (*set_fonts)(void *renderer, const char *font, const char *family, int provider, const char *config, int update);
    void *(*new_track)(void *library);
    void (*free_track)(void *track);
    void (*process_codec_private)(void *track, const char *data, int size);
    void (*process_chunk)(void *track, const char *data, int size, long long start, long long duration);
    mp_ass_image *(*render_frame)(void *renderer, void *track, long long now, int *changed);
    void (*set_cache_limits)(void *renderer, int glyph_max, int bitmap_max_size);
} mp_ass_api;

static inline void mp_ass_quiet(int level, const char *format, va_list arguments, void *data) {
    (void)level; (void)format; (void)arguments; (void)data;
}

/// Loads libass into `api`; 0, or -1 with the reason in `reason`.
static inline int mp_ass_load(mp_ass_api *api, char *reason, size_t size) {
    void *library = dlopen("libass.so.9", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(reason, size, "%s", dlerror());
        return -1;
    }
    struct { void **slot; const char *name; } symbols[] = {
        { (void **)&api->library_init, "ass_library_init" },
        { (void **)&api->library_done, "ass_library_done" },
        { (void **)&api->set_message_cb, "ass_set_message_cb" },
        { (void **)&api->set_fonts_dir, "ass_set_fonts_dir" },
        { (void **)&api->set_extract_fonts, "ass_set_extract_fonts" },
        { (void **)&api->add_font, "ass_add_font" },
        { (void **)&api->renderer_init, "ass_renderer_init" },
        { (void **)&api->renderer_done, "ass_renderer_done" },
        { (void **)&api->set_frame_size, "ass_set_frame_size" },
        { (void **)&api->set_storage_size, "ass_set_storage_size" },
        { (void **)&api->set_shaper, "ass_set_shaper" },
        { (void **)&api->set_fonts, "ass_set_fonts" },
        { (void **)&api->new_track, "ass_new_track" },
        { (void **)&api->free_track, "ass_free_track" },
        { (void **)&api->process_codec_private, "ass_process_codec_private" },
        { (void **)&api->process_chunk, "ass_process_chunk" },
        { (void **)&api->render_frame, "ass_render_frame" },
        { (void **)&api->set_cache_limits, "ass_set_cache_limits" },
    };
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(reason, size, "libass.so.9 has no %s", symbols[i].name);
            return -1;
        }
    }
    return 0;
}

/// Silences libass's messages (our errors say it in one line).
static inline void mp_ass_silence(const mp_ass_api *api, void *library) {
    api->set_message_cb(library, mp_ass_quiet, NULL);
}

/// What a format context may open by itself (its `opaque`): only the main
/// input's own URL (the image2 demuxer reopens its file per frame), never
/// anything else. A playlist (HLS, DASH, concat) or an MP4 reference would
/// otherwise make FFmpeg read local files or fetch URLs outside libcurl's
/// rules and the cache (docs/FEED.md).
typedef struct {
    /// The one URL that may be opened again, or NULL: none.
    const char *allowed;
    /// An adaptive stream (HLS, DASH) from the web: its manifest may open
    /// http(s) URLs (and HLS's crypto over them), nothing else; the
    /// headers a page's site asked for go to `host` only.
    int remote;
    const char *host;
    /// The page's cookies ("Cookie: …\r\n"), or NULL: sent to `host` only,
    /// never through a redirect libavformat follows by itself.
    const char *cookie;
    /// Set when an open was refused, with the URL it asked for.
    int refused;
    char refusedURL[512];
} mp_io_policy;

/// Whether `url` starts with `prefix`, ignoring case.
static inline int mp_has_prefix(const char *url, const char *prefix) {
    return strncasecmp(url, prefix, strlen(prefix)) == 0;
}

/// An http(s) URL (or HLS's crypto+http(s)) on the web: the only opens an
/// adaptive stream's manifest may make.
static inline int mp_is_web_url(const char *url) {
    if (mp_has_prefix(url, "crypto+")) url += 7;
    else if (mp_has_prefix(url, "crypto:")) url += 7;
    return mp_has_prefix(url, "http://") || mp_has_prefix(url, "https://");
}

/// Whether `url`'s host is `host` (the part after "://" up to '/', '?', '#' or ':').
static inline int mp_url_on_host(const char *url, const char *host) {
    if (host == NULL) return 0;
    const char *start = strstr(url, "://");
    if (start == NULL) return 0;
    start += 3;
    const char *at = strpbrk(start, "@/?#");
    if (at != NULL && *at == '@') start = at + 1;
    size_t length = strlen(host);
    if (strncasecmp(start, host, length) != 0) return 0;
    char next = start[length];
    return next == 0 || next == '/' || next == ':' || next == '?' || next == '#';
}

static inline int mp_io_open_remote(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options, mp_io_policy *policy) {
    AVDictionary *local = NULL;
    if (options != NULL && *options != NULL) av_dict_copy(&local, *options, 0);
    av_dict_set(&local, "protocol_whitelist", "http,https,tcp,tls,crypto", 0);
    av_dict_set(&local, "cookies", NULL, 0);
    int onHost = mp_url_on_host(mp_has_prefix(url, "crypto") ? url + 7 : url, policy->host);
    if (!onHost) av_dict_set(&local, "headers", NULL, 0);
    int result;
    if (onHost && policy->cookie != NULL) {
        // libavformat's http follows a redirect itself, with the same
        // headers, to any host: with the cookies, no redirect is followed;
        // one that comes is opened again without them.
        AVDictionary *withCookie = NULL;
        av_dict_copy(&withCookie, local, 0);
        av_dict_set(&withCookie, "headers", policy->cookie, AV_DICT_APPEND);
        av_dict_set(&withCookie, "max_redirects", "0", 0);
        result = avio_open2(pb, url, flags, &s->interrupt_callback, &withCookie);
        av_dict_free(&withCookie);
        if (result != AVERROR(EIO) || (s->interrupt_callback.callback != NULL && s->interrupt_callback.callback(s->interrupt_callback.opaque))) {
            av_dict_free(&local);
            return result;
        }
    }
    result = avio_open2(pb, url, flags, &s->interrupt_callback, &local);
    av_dict_free(&local);
    return result;
}

static inline int mp_io_open_guarded(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    mp_io_policy *policy = (mp_io_policy *)s->opaque;
    if (policy != NULL && policy->remote && url != NULL && !(flags & AVIO_FLAG_WRITE) && mp_is_web_url(url)) {
        return mp_io_open_remote(s, pb, url, flags, options, policy);
    }
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

/// A stop flag an adaptive stream's reads check (libavformat's interrupt
/// callback): set, a blocked network read ends.
static inline int mp_interrupt_check(void *opaque) {
    return opaque != NULL && __atomic_load_n((int *)opaque, __ATOMIC_RELAXED) != 0;
}
static inline void mp_interrupt_set(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }
static inline void mp_interrupt_install(AVFormatContext *context, int *flag) {
    context->interrupt_callback.callback = mp_interrupt_check;
    context->interrupt_callback.opaque = flag;
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
