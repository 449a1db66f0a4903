// Written by scripts/make-media-loader.py: do not edit by hand.
// Each function loads its library on its first call (media_loader.c).

#include "media_loader_headers.h"

int av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_find_best_stream))mp_media_function(MP_AVFORMAT, "av_find_best_stream", &slot))(ic, type, wanted_stream_nb, related_stream, decoder_ret, flags);
}

int av_read_frame(AVFormatContext *s, AVPacket *pkt) {
    static void *_Atomic slot;
    return ((__typeof__(&av_read_frame))mp_media_function(MP_AVFORMAT, "av_read_frame", &slot))(s, pkt);
}

uint8_t *av_stream_get_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_stream_get_side_data))mp_media_function(MP_AVFORMAT, "av_stream_get_side_data", &slot))(stream, type, size);
}

AVFormatContext *avformat_alloc_context(void) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_alloc_context))mp_media_function(MP_AVFORMAT, "avformat_alloc_context", &slot))();
}

void avformat_close_input(AVFormatContext **s) {
    static void *_Atomic slot;
    ((__typeof__(&avformat_close_input))mp_media_function(MP_AVFORMAT, "avformat_close_input", &slot))(s);
}

int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_find_stream_info))mp_media_function(MP_AVFORMAT, "avformat_find_stream_info", &slot))(ic, options);
}

int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_open_input))mp_media_function(MP_AVFORMAT, "avformat_open_input", &slot))(ps, url, fmt, options);
}

int avformat_seek_file(AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_seek_file))mp_media_function(MP_AVFORMAT, "avformat_seek_file", &slot))(s, stream_index, min_ts, ts, max_ts, flags);
}

AVIOContext *avio_alloc_context(unsigned char *buffer, int buffer_size, int write_flag, void *opaque, int (*read_packet)(void *, uint8_t *, int), int (*write_packet)(void *, uint8_t *, int), int64_t (*seek)(void *, int64_t, int)) {
    static void *_Atomic slot;
    return ((__typeof__(&avio_alloc_context))mp_media_function(MP_AVFORMAT, "avio_alloc_context", &slot))(buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek);
}

void avio_context_free(AVIOContext **s) {
    static void *_Atomic slot;
    ((__typeof__(&avio_context_free))mp_media_function(MP_AVFORMAT, "avio_context_free", &slot))(s);
}

int avio_open2(AVIOContext **s, const char *url, int flags, const AVIOInterruptCB *int_cb, AVDictionary **options) {
    static void *_Atomic slot;
    return ((__typeof__(&avio_open2))mp_media_function(MP_AVFORMAT, "avio_open2", &slot))(s, url, flags, int_cb, options);
}

unsigned int avformat_version(void) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_version))mp_media_function(MP_AVFORMAT, "avformat_version", &slot))();
}

int avformat_alloc_output_context2(AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_alloc_output_context2))mp_media_function(MP_AVFORMAT, "avformat_alloc_output_context2", &slot))(ctx, oformat, format_name, filename);
}

void avformat_free_context(AVFormatContext *s) {
    static void *_Atomic slot;
    ((__typeof__(&avformat_free_context))mp_media_function(MP_AVFORMAT, "avformat_free_context", &slot))(s);
}

AVStream *avformat_new_stream(AVFormatContext *s, const AVCodec *c) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_new_stream))mp_media_function(MP_AVFORMAT, "avformat_new_stream", &slot))(s, c);
}

int avformat_write_header(AVFormatContext *s, AVDictionary **options) {
    static void *_Atomic slot;
    return ((__typeof__(&avformat_write_header))mp_media_function(MP_AVFORMAT, "avformat_write_header", &slot))(s, options);
}

int av_interleaved_write_frame(AVFormatContext *s, AVPacket *pkt) {
    static void *_Atomic slot;
    return ((__typeof__(&av_interleaved_write_frame))mp_media_function(MP_AVFORMAT, "av_interleaved_write_frame", &slot))(s, pkt);
}

int av_write_trailer(AVFormatContext *s) {
    static void *_Atomic slot;
    return ((__typeof__(&av_write_trailer))mp_media_function(MP_AVFORMAT, "av_write_trailer", &slot))(s);
}

int avio_open(AVIOContext **s, const char *url, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&avio_open))mp_media_function(MP_AVFORMAT, "avio_open", &slot))(s, url, flags);
}

int avio_closep(AVIOContext **s) {
    static void *_Atomic slot;
    return ((__typeof__(&avio_closep))mp_media_function(MP_AVFORMAT, "avio_closep", &slot))(s);
}

AVPacket *av_packet_alloc(void) {
    static void *_Atomic slot;
    return ((__typeof__(&av_packet_alloc))mp_media_function(MP_AVCODEC, "av_packet_alloc", &slot))();
}

void av_packet_free(AVPacket **pkt) {
    static void *_Atomic slot;
    ((__typeof__(&av_packet_free))mp_media_function(MP_AVCODEC, "av_packet_free", &slot))(pkt);
}

void av_packet_move_ref(AVPacket *dst, AVPacket *src) {
    static void *_Atomic slot;
    ((__typeof__(&av_packet_move_ref))mp_media_function(MP_AVCODEC, "av_packet_move_ref", &slot))(dst, src);
}

int av_packet_ref(AVPacket *dst, const AVPacket *src) {
    static void *_Atomic slot;
    return ((__typeof__(&av_packet_ref))mp_media_function(MP_AVCODEC, "av_packet_ref", &slot))(dst, src);
}

void av_packet_unref(AVPacket *pkt) {
    static void *_Atomic slot;
    ((__typeof__(&av_packet_unref))mp_media_function(MP_AVCODEC, "av_packet_unref", &slot))(pkt);
}

AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_alloc_context3))mp_media_function(MP_AVCODEC, "avcodec_alloc_context3", &slot))(codec);
}

int avcodec_decode_subtitle2(AVCodecContext *avctx, AVSubtitle *sub, int *got_sub_ptr, AVPacket *avpkt) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_decode_subtitle2))mp_media_function(MP_AVCODEC, "avcodec_decode_subtitle2", &slot))(avctx, sub, got_sub_ptr, avpkt);
}

const AVCodecDescriptor *avcodec_descriptor_get(enum AVCodecID id) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_descriptor_get))mp_media_function(MP_AVCODEC, "avcodec_descriptor_get", &slot))(id);
}

const AVCodec *avcodec_find_decoder(enum AVCodecID id) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_find_decoder))mp_media_function(MP_AVCODEC, "avcodec_find_decoder", &slot))(id);
}

void avcodec_free_context(AVCodecContext **avctx) {
    static void *_Atomic slot;
    ((__typeof__(&avcodec_free_context))mp_media_function(MP_AVCODEC, "avcodec_free_context", &slot))(avctx);
}

const char *avcodec_get_name(enum AVCodecID id) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_get_name))mp_media_function(MP_AVCODEC, "avcodec_get_name", &slot))(id);
}

int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_open2))mp_media_function(MP_AVCODEC, "avcodec_open2", &slot))(avctx, codec, options);
}

int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_parameters_to_context))mp_media_function(MP_AVCODEC, "avcodec_parameters_to_context", &slot))(codec, par);
}

int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_receive_frame))mp_media_function(MP_AVCODEC, "avcodec_receive_frame", &slot))(avctx, frame);
}

int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_send_packet))mp_media_function(MP_AVCODEC, "avcodec_send_packet", &slot))(avctx, avpkt);
}

void avsubtitle_free(AVSubtitle *sub) {
    static void *_Atomic slot;
    ((__typeof__(&avsubtitle_free))mp_media_function(MP_AVCODEC, "avsubtitle_free", &slot))(sub);
}

unsigned int avcodec_version(void) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_version))mp_media_function(MP_AVCODEC, "avcodec_version", &slot))();
}

const AVCodec *avcodec_find_encoder(enum AVCodecID id) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_find_encoder))mp_media_function(MP_AVCODEC, "avcodec_find_encoder", &slot))(id);
}

int avcodec_encode_subtitle(AVCodecContext *avctx, uint8_t *buf, int buf_size, const AVSubtitle *sub) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_encode_subtitle))mp_media_function(MP_AVCODEC, "avcodec_encode_subtitle", &slot))(avctx, buf, buf_size, sub);
}

int avcodec_parameters_from_context(AVCodecParameters *par, const AVCodecContext *codec) {
    static void *_Atomic slot;
    return ((__typeof__(&avcodec_parameters_from_context))mp_media_function(MP_AVCODEC, "avcodec_parameters_from_context", &slot))(par, codec);
}

int av_new_packet(AVPacket *pkt, int size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_new_packet))mp_media_function(MP_AVCODEC, "av_new_packet", &slot))(pkt, size);
}

AVBufferRef *av_buffer_pool_get(AVBufferPool *pool) {
    static void *_Atomic slot;
    return ((__typeof__(&av_buffer_pool_get))mp_media_function(MP_AVUTIL, "av_buffer_pool_get", &slot))(pool);
}

AVBufferPool *av_buffer_pool_init(size_t size, AVBufferRef *(*alloc)(size_t)) {
    static void *_Atomic slot;
    return ((__typeof__(&av_buffer_pool_init))mp_media_function(MP_AVUTIL, "av_buffer_pool_init", &slot))(size, alloc);
}

void av_buffer_pool_uninit(AVBufferPool **pool) {
    static void *_Atomic slot;
    ((__typeof__(&av_buffer_pool_uninit))mp_media_function(MP_AVUTIL, "av_buffer_pool_uninit", &slot))(pool);
}

void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) {
    static void *_Atomic slot;
    ((__typeof__(&av_channel_layout_default))mp_media_function(MP_AVUTIL, "av_channel_layout_default", &slot))(ch_layout, nb_channels);
}

int av_channel_layout_describe(const AVChannelLayout *channel_layout, char *buf, size_t buf_size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_channel_layout_describe))mp_media_function(MP_AVUTIL, "av_channel_layout_describe", &slot))(channel_layout, buf, buf_size);
}

void av_channel_layout_uninit(AVChannelLayout *channel_layout) {
    static void *_Atomic slot;
    ((__typeof__(&av_channel_layout_uninit))mp_media_function(MP_AVUTIL, "av_channel_layout_uninit", &slot))(channel_layout);
}

int av_compare_ts(int64_t ts_a, AVRational tb_a, int64_t ts_b, AVRational tb_b) {
    static void *_Atomic slot;
    return ((__typeof__(&av_compare_ts))mp_media_function(MP_AVUTIL, "av_compare_ts", &slot))(ts_a, tb_a, ts_b, tb_b);
}

int av_dict_copy(AVDictionary **dst, const AVDictionary *src, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_dict_copy))mp_media_function(MP_AVUTIL, "av_dict_copy", &slot))(dst, src, flags);
}

void av_dict_free(AVDictionary **m) {
    static void *_Atomic slot;
    ((__typeof__(&av_dict_free))mp_media_function(MP_AVUTIL, "av_dict_free", &slot))(m);
}

AVDictionaryEntry *av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_dict_get))mp_media_function(MP_AVUTIL, "av_dict_get", &slot))(m, key, prev, flags);
}

int av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_dict_set))mp_media_function(MP_AVUTIL, "av_dict_set", &slot))(pm, key, value, flags);
}

double av_display_rotation_get(const int32_t *matrix) {
    static void *_Atomic slot;
    return ((__typeof__(&av_display_rotation_get))mp_media_function(MP_AVUTIL, "av_display_rotation_get", &slot))(matrix);
}

AVFrame *av_frame_alloc(void) {
    static void *_Atomic slot;
    return ((__typeof__(&av_frame_alloc))mp_media_function(MP_AVUTIL, "av_frame_alloc", &slot))();
}

int av_frame_copy(AVFrame *dst, const AVFrame *src) {
    static void *_Atomic slot;
    return ((__typeof__(&av_frame_copy))mp_media_function(MP_AVUTIL, "av_frame_copy", &slot))(dst, src);
}

int av_frame_copy_props(AVFrame *dst, const AVFrame *src) {
    static void *_Atomic slot;
    return ((__typeof__(&av_frame_copy_props))mp_media_function(MP_AVUTIL, "av_frame_copy_props", &slot))(dst, src);
}

void av_frame_free(AVFrame **frame) {
    static void *_Atomic slot;
    ((__typeof__(&av_frame_free))mp_media_function(MP_AVUTIL, "av_frame_free", &slot))(frame);
}

int av_frame_get_buffer(AVFrame *frame, int align) {
    static void *_Atomic slot;
    return ((__typeof__(&av_frame_get_buffer))mp_media_function(MP_AVUTIL, "av_frame_get_buffer", &slot))(frame, align);
}

int av_frame_is_writable(AVFrame *frame) {
    static void *_Atomic slot;
    return ((__typeof__(&av_frame_is_writable))mp_media_function(MP_AVUTIL, "av_frame_is_writable", &slot))(frame);
}

void av_frame_unref(AVFrame *frame) {
    static void *_Atomic slot;
    ((__typeof__(&av_frame_unref))mp_media_function(MP_AVUTIL, "av_frame_unref", &slot))(frame);
}

void av_free(void *ptr) {
    static void *_Atomic slot;
    ((__typeof__(&av_free))mp_media_function(MP_AVUTIL, "av_free", &slot))(ptr);
}

const char *av_get_sample_fmt_name(enum AVSampleFormat sample_fmt) {
    static void *_Atomic slot;
    return ((__typeof__(&av_get_sample_fmt_name))mp_media_function(MP_AVUTIL, "av_get_sample_fmt_name", &slot))(sample_fmt);
}

int av_image_copy_to_buffer(uint8_t *dst, int dst_size, const uint8_t *const *src_data, const int *src_linesize, enum AVPixelFormat pix_fmt, int width, int height, int align) {
    static void *_Atomic slot;
    return ((__typeof__(&av_image_copy_to_buffer))mp_media_function(MP_AVUTIL, "av_image_copy_to_buffer", &slot))(dst, dst_size, src_data, src_linesize, pix_fmt, width, height, align);
}

int av_image_get_buffer_size(enum AVPixelFormat pix_fmt, int width, int height, int align) {
    static void *_Atomic slot;
    return ((__typeof__(&av_image_get_buffer_size))mp_media_function(MP_AVUTIL, "av_image_get_buffer_size", &slot))(pix_fmt, width, height, align);
}

void av_log_set_level(int level) {
    static void *_Atomic slot;
    ((__typeof__(&av_log_set_level))mp_media_function(MP_AVUTIL, "av_log_set_level", &slot))(level);
}

void *av_malloc(size_t size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_malloc))mp_media_function(MP_AVUTIL, "av_malloc", &slot))(size);
}

void av_md5_sum(uint8_t *dst, const uint8_t *src, size_t len) {
    static void *_Atomic slot;
    ((__typeof__(&av_md5_sum))mp_media_function(MP_AVUTIL, "av_md5_sum", &slot))(dst, src, len);
}

int av_opt_set(void *obj, const char *name, const char *val, int search_flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_opt_set))mp_media_function(MP_AVUTIL, "av_opt_set", &slot))(obj, name, val, search_flags);
}

int av_opt_set_int(void *obj, const char *name, int64_t val, int search_flags) {
    static void *_Atomic slot;
    return ((__typeof__(&av_opt_set_int))mp_media_function(MP_AVUTIL, "av_opt_set_int", &slot))(obj, name, val, search_flags);
}

const AVPixFmtDescriptor *av_pix_fmt_desc_get(enum AVPixelFormat pix_fmt) {
    static void *_Atomic slot;
    return ((__typeof__(&av_pix_fmt_desc_get))mp_media_function(MP_AVUTIL, "av_pix_fmt_desc_get", &slot))(pix_fmt);
}

int64_t av_rescale_q(int64_t a, AVRational bq, AVRational cq) {
    static void *_Atomic slot;
    return ((__typeof__(&av_rescale_q))mp_media_function(MP_AVUTIL, "av_rescale_q", &slot))(a, bq, cq);
}

int64_t av_rescale_q_rnd(int64_t a, AVRational bq, AVRational cq, enum AVRounding rnd) {
    static void *_Atomic slot;
    return ((__typeof__(&av_rescale_q_rnd))mp_media_function(MP_AVUTIL, "av_rescale_q_rnd", &slot))(a, bq, cq, rnd);
}

char *av_strdup(const char *s) {
    static void *_Atomic slot;
    return ((__typeof__(&av_strdup))mp_media_function(MP_AVUTIL, "av_strdup", &slot))(s);
}

int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_strerror))mp_media_function(MP_AVUTIL, "av_strerror", &slot))(errnum, errbuf, errbuf_size);
}

unsigned int avutil_version(void) {
    static void *_Atomic slot;
    return ((__typeof__(&avutil_version))mp_media_function(MP_AVUTIL, "avutil_version", &slot))();
}

const char *av_version_info(void) {
    static void *_Atomic slot;
    return ((__typeof__(&av_version_info))mp_media_function(MP_AVUTIL, "av_version_info", &slot))();
}

void *av_mallocz(size_t size) {
    static void *_Atomic slot;
    return ((__typeof__(&av_mallocz))mp_media_function(MP_AVUTIL, "av_mallocz", &slot))(size);
}

int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx) {
    static void *_Atomic slot;
    return ((__typeof__(&swr_alloc_set_opts2))mp_media_function(MP_SWRESAMPLE, "swr_alloc_set_opts2", &slot))(ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx);
}

int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count) {
    static void *_Atomic slot;
    return ((__typeof__(&swr_convert))mp_media_function(MP_SWRESAMPLE, "swr_convert", &slot))(s, out, out_count, in, in_count);
}

void swr_free(struct SwrContext **s) {
    static void *_Atomic slot;
    ((__typeof__(&swr_free))mp_media_function(MP_SWRESAMPLE, "swr_free", &slot))(s);
}

int swr_get_out_samples(struct SwrContext *s, int in_samples) {
    static void *_Atomic slot;
    return ((__typeof__(&swr_get_out_samples))mp_media_function(MP_SWRESAMPLE, "swr_get_out_samples", &slot))(s, in_samples);
}

int swr_init(struct SwrContext *s) {
    static void *_Atomic slot;
    return ((__typeof__(&swr_init))mp_media_function(MP_SWRESAMPLE, "swr_init", &slot))(s);
}

unsigned int swresample_version(void) {
    static void *_Atomic slot;
    return ((__typeof__(&swresample_version))mp_media_function(MP_SWRESAMPLE, "swresample_version", &slot))();
}

void sws_freeContext(struct SwsContext *swsContext) {
    static void *_Atomic slot;
    ((__typeof__(&sws_freeContext))mp_media_function(MP_SWSCALE, "sws_freeContext", &slot))(swsContext);
}

struct SwsContext *sws_getCachedContext(struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    static void *_Atomic slot;
    return ((__typeof__(&sws_getCachedContext))mp_media_function(MP_SWSCALE, "sws_getCachedContext", &slot))(context, srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}

struct SwsContext *sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    static void *_Atomic slot;
    return ((__typeof__(&sws_getContext))mp_media_function(MP_SWSCALE, "sws_getContext", &slot))(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}

int sws_scale(struct SwsContext *c, const uint8_t *const *srcSlice, const int *srcStride, int srcSliceY, int srcSliceH, uint8_t *const *dst, const int *dstStride) {
    static void *_Atomic slot;
    return ((__typeof__(&sws_scale))mp_media_function(MP_SWSCALE, "sws_scale", &slot))(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}

unsigned int swscale_version(void) {
    static void *_Atomic slot;
    return ((__typeof__(&swscale_version))mp_media_function(MP_SWSCALE, "swscale_version", &slot))();
}

void SDL_CloseAudioDevice(SDL_AudioDeviceID dev) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_CloseAudioDevice))mp_media_function(MP_SDL2, "SDL_CloseAudioDevice", &slot))(dev);
}

SDL_Renderer *SDL_CreateRenderer(SDL_Window *window, int index, Uint32 flags) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_CreateRenderer))mp_media_function(MP_SDL2, "SDL_CreateRenderer", &slot))(window, index, flags);
}

SDL_Texture *SDL_CreateTexture(SDL_Renderer *renderer, Uint32 format, int access, int w, int h) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_CreateTexture))mp_media_function(MP_SDL2, "SDL_CreateTexture", &slot))(renderer, format, access, w, h);
}

SDL_Window *SDL_CreateWindow(const char *title, int x, int y, int w, int h, Uint32 flags) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_CreateWindow))mp_media_function(MP_SDL2, "SDL_CreateWindow", &slot))(title, x, y, w, h, flags);
}

void SDL_Delay(Uint32 ms) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_Delay))mp_media_function(MP_SDL2, "SDL_Delay", &slot))(ms);
}

void SDL_DestroyRenderer(SDL_Renderer *renderer) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_DestroyRenderer))mp_media_function(MP_SDL2, "SDL_DestroyRenderer", &slot))(renderer);
}

void SDL_DestroyTexture(SDL_Texture *texture) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_DestroyTexture))mp_media_function(MP_SDL2, "SDL_DestroyTexture", &slot))(texture);
}

void SDL_DestroyWindow(SDL_Window *window) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_DestroyWindow))mp_media_function(MP_SDL2, "SDL_DestroyWindow", &slot))(window);
}

const char *SDL_GetCurrentVideoDriver(void) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_GetCurrentVideoDriver))mp_media_function(MP_SDL2, "SDL_GetCurrentVideoDriver", &slot))();
}

int SDL_GetDisplayUsableBounds(int displayIndex, SDL_Rect *rect) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_GetDisplayUsableBounds))mp_media_function(MP_SDL2, "SDL_GetDisplayUsableBounds", &slot))(displayIndex, rect);
}

const char *SDL_GetError(void) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_GetError))mp_media_function(MP_SDL2, "SDL_GetError", &slot))();
}

int SDL_GetRendererInfo(SDL_Renderer *renderer, SDL_RendererInfo *info) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_GetRendererInfo))mp_media_function(MP_SDL2, "SDL_GetRendererInfo", &slot))(renderer, info);
}

int SDL_GetRendererOutputSize(SDL_Renderer *renderer, int *w, int *h) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_GetRendererOutputSize))mp_media_function(MP_SDL2, "SDL_GetRendererOutputSize", &slot))(renderer, w, h);
}

void SDL_GetWindowSize(SDL_Window *window, int *w, int *h) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_GetWindowSize))mp_media_function(MP_SDL2, "SDL_GetWindowSize", &slot))(window, w, h);
}

int SDL_InitSubSystem(Uint32 flags) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_InitSubSystem))mp_media_function(MP_SDL2, "SDL_InitSubSystem", &slot))(flags);
}

void SDL_LockAudioDevice(SDL_AudioDeviceID dev) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_LockAudioDevice))mp_media_function(MP_SDL2, "SDL_LockAudioDevice", &slot))(dev);
}

void SDL_LogSetAllPriority(SDL_LogPriority priority) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_LogSetAllPriority))mp_media_function(MP_SDL2, "SDL_LogSetAllPriority", &slot))(priority);
}

SDL_AudioDeviceID SDL_OpenAudioDevice(const char *device, int iscapture, const SDL_AudioSpec *desired, SDL_AudioSpec *obtained, int allowed_changes) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_OpenAudioDevice))mp_media_function(MP_SDL2, "SDL_OpenAudioDevice", &slot))(device, iscapture, desired, obtained, allowed_changes);
}

void SDL_PauseAudioDevice(SDL_AudioDeviceID dev, int pause_on) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_PauseAudioDevice))mp_media_function(MP_SDL2, "SDL_PauseAudioDevice", &slot))(dev, pause_on);
}

int SDL_PollEvent(SDL_Event *event) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_PollEvent))mp_media_function(MP_SDL2, "SDL_PollEvent", &slot))(event);
}

int SDL_PushEvent(SDL_Event *event) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_PushEvent))mp_media_function(MP_SDL2, "SDL_PushEvent", &slot))(event);
}

void SDL_QuitSubSystem(Uint32 flags) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_QuitSubSystem))mp_media_function(MP_SDL2, "SDL_QuitSubSystem", &slot))(flags);
}

Uint32 SDL_RegisterEvents(int numevents) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_RegisterEvents))mp_media_function(MP_SDL2, "SDL_RegisterEvents", &slot))(numevents);
}

int SDL_RenderClear(SDL_Renderer *renderer) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_RenderClear))mp_media_function(MP_SDL2, "SDL_RenderClear", &slot))(renderer);
}

int SDL_RenderCopy(SDL_Renderer *renderer, SDL_Texture *texture, const SDL_Rect *srcrect, const SDL_Rect *dstrect) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_RenderCopy))mp_media_function(MP_SDL2, "SDL_RenderCopy", &slot))(renderer, texture, srcrect, dstrect);
}

int SDL_RenderCopyEx(SDL_Renderer *renderer, SDL_Texture *texture, const SDL_Rect *srcrect, const SDL_Rect *dstrect, const double angle, const SDL_Point *center, const SDL_RendererFlip flip) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_RenderCopyEx))mp_media_function(MP_SDL2, "SDL_RenderCopyEx", &slot))(renderer, texture, srcrect, dstrect, angle, center, flip);
}

void SDL_RenderPresent(SDL_Renderer *renderer) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_RenderPresent))mp_media_function(MP_SDL2, "SDL_RenderPresent", &slot))(renderer);
}

int SDL_SetRenderDrawColor(SDL_Renderer *renderer, Uint8 r, Uint8 g, Uint8 b, Uint8 a) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_SetRenderDrawColor))mp_media_function(MP_SDL2, "SDL_SetRenderDrawColor", &slot))(renderer, r, g, b, a);
}

int SDL_SetTextureBlendMode(SDL_Texture *texture, SDL_BlendMode blendMode) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_SetTextureBlendMode))mp_media_function(MP_SDL2, "SDL_SetTextureBlendMode", &slot))(texture, blendMode);
}

void SDL_SetWindowTitle(SDL_Window *window, const char *title) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_SetWindowTitle))mp_media_function(MP_SDL2, "SDL_SetWindowTitle", &slot))(window, title);
}

void SDL_StartTextInput(void) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_StartTextInput))mp_media_function(MP_SDL2, "SDL_StartTextInput", &slot))();
}

void SDL_UnlockAudioDevice(SDL_AudioDeviceID dev) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_UnlockAudioDevice))mp_media_function(MP_SDL2, "SDL_UnlockAudioDevice", &slot))(dev);
}

int SDL_UpdateTexture(SDL_Texture *texture, const SDL_Rect *rect, const void *pixels, int pitch) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_UpdateTexture))mp_media_function(MP_SDL2, "SDL_UpdateTexture", &slot))(texture, rect, pixels, pitch);
}

int SDL_UpdateYUVTexture(SDL_Texture *texture, const SDL_Rect *rect, const Uint8 *Yplane, int Ypitch, const Uint8 *Uplane, int Upitch, const Uint8 *Vplane, int Vpitch) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_UpdateYUVTexture))mp_media_function(MP_SDL2, "SDL_UpdateYUVTexture", &slot))(texture, rect, Yplane, Ypitch, Uplane, Upitch, Vplane, Vpitch);
}

int SDL_WaitEvent(SDL_Event *event) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_WaitEvent))mp_media_function(MP_SDL2, "SDL_WaitEvent", &slot))(event);
}

Uint32 SDL_WasInit(Uint32 flags) {
    static void *_Atomic slot;
    return ((__typeof__(&SDL_WasInit))mp_media_function(MP_SDL2, "SDL_WasInit", &slot))(flags);
}

void SDL_GetVersion(SDL_version *ver) {
    static void *_Atomic slot;
    ((__typeof__(&SDL_GetVersion))mp_media_function(MP_SDL2, "SDL_GetVersion", &slot))(ver);
}

void curl_easy_cleanup(CURL *curl) {
    static void *_Atomic slot;
    ((__typeof__(&curl_easy_cleanup))mp_media_function(MP_CURL, "curl_easy_cleanup", &slot))(curl);
}

CURL *curl_easy_init(void) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_easy_init))mp_media_function(MP_CURL, "curl_easy_init", &slot))();
}

CURLcode curl_easy_perform(CURL *curl) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_easy_perform))mp_media_function(MP_CURL, "curl_easy_perform", &slot))(curl);
}

const char *curl_easy_strerror(CURLcode p0) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_easy_strerror))mp_media_function(MP_CURL, "curl_easy_strerror", &slot))(p0);
}

CURLcode curl_global_init(long flags) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_global_init))mp_media_function(MP_CURL, "curl_global_init", &slot))(flags);
}

CURLMcode curl_multi_add_handle(CURLM *multi_handle, CURL *curl_handle) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_add_handle))mp_media_function(MP_CURL, "curl_multi_add_handle", &slot))(multi_handle, curl_handle);
}

CURLMsg *curl_multi_info_read(CURLM *multi_handle, int *msgs_in_queue) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_info_read))mp_media_function(MP_CURL, "curl_multi_info_read", &slot))(multi_handle, msgs_in_queue);
}

CURLM *curl_multi_init(void) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_init))mp_media_function(MP_CURL, "curl_multi_init", &slot))();
}

CURLMcode curl_multi_perform(CURLM *multi_handle, int *running_handles) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_perform))mp_media_function(MP_CURL, "curl_multi_perform", &slot))(multi_handle, running_handles);
}

CURLMcode curl_multi_poll(CURLM *multi_handle, struct curl_waitfd *extra_fds, unsigned int extra_nfds, int timeout_ms, int *ret) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_poll))mp_media_function(MP_CURL, "curl_multi_poll", &slot))(multi_handle, extra_fds, extra_nfds, timeout_ms, ret);
}

CURLMcode curl_multi_remove_handle(CURLM *multi_handle, CURL *curl_handle) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_remove_handle))mp_media_function(MP_CURL, "curl_multi_remove_handle", &slot))(multi_handle, curl_handle);
}

CURLMcode curl_multi_wakeup(CURLM *multi_handle) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_multi_wakeup))mp_media_function(MP_CURL, "curl_multi_wakeup", &slot))(multi_handle);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *data) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_slist_append))mp_media_function(MP_CURL, "curl_slist_append", &slot))(list, data);
}

void curl_slist_free_all(struct curl_slist *list) {
    static void *_Atomic slot;
    ((__typeof__(&curl_slist_free_all))mp_media_function(MP_CURL, "curl_slist_free_all", &slot))(list);
}

curl_version_info_data *curl_version_info(CURLversion p0) {
    static void *_Atomic slot;
    return ((__typeof__(&curl_version_info))mp_media_function(MP_CURL, "curl_version_info", &slot))(p0);
}
