import CCurl
import CFFmpeg
import CSDL2
import Glibc
import Testing

/// Each C module links, answers with the library version Debian 12 ships, and
/// its shim's macro wrappers give the values the C headers define.
@Suite struct CModulesTests {
    @Test func ffmpegLinksAndAnswers() {
        #expect(avformat_version() >> 16 == UInt32(LIBAVFORMAT_VERSION_MAJOR))
        #expect(avcodec_version() >> 16 == UInt32(LIBAVCODEC_VERSION_MAJOR))
        #expect(avutil_version() >> 16 == UInt32(LIBAVUTIL_VERSION_MAJOR))
        #expect(swresample_version() >> 16 == UInt32(LIBSWRESAMPLE_VERSION_MAJOR))
        #expect(swscale_version() >> 16 == UInt32(LIBSWSCALE_VERSION_MAJOR))
        // FFmpeg 5.1 or later: the ch_layout API we build on.
        #expect(avutil_version() >> 16 >= 57)
        #expect(String(cString: av_version_info()).isEmpty == false)
    }

    @Test func ffmpegMacroWrappers() {
        #expect(mp_averror(EAGAIN) == -EAGAIN)
        #expect(mp_averror_eagain() == -EAGAIN)
        // AVERROR_EOF is FFERRTAG('E','O','F',' '), negated.
        let tag = Int32(UInt8(ascii: "E")) | Int32(UInt8(ascii: "O")) << 8 | Int32(UInt8(ascii: "F")) << 16 | Int32(UInt8(ascii: " ")) << 24
        #expect(mp_averror_eof() == -tag)
        #expect(mp_av_nopts_value() == Int64.min)
        #expect(mp_av_time_base_q().num == 1 && mp_av_time_base_q().den == AV_TIME_BASE)
        var stereo = mp_channel_layout_stereo()
        var mono = mp_channel_layout_mono()
        #expect(stereo.nb_channels == 2)
        #expect(mono.nb_channels == 1)
        #expect(stereo.order == AV_CHANNEL_ORDER_NATIVE)
        var buffer = [CChar](repeating: 0, count: 128)
        #expect(mp_av_strerror(mp_averror_eof(), &buffer, buffer.count) == 0)
        #expect(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "End of file")
        av_channel_layout_uninit(&stereo)
        av_channel_layout_uninit(&mono)
    }

    @Test func sdlLinksAndAnswers() {
        var linked = SDL_version()
        SDL_GetVersion(&linked)
        let compiled = mp_sdl_compiled_version()
        #expect(linked.major == 2)
        #expect(compiled.major == linked.major)
        #expect(mp_sdl_windowpos_centered() == 0x2FFF_0000)
        #expect(mp_sdl_windowpos_undefined() == 0x1FFF_0000)
        #expect(mp_sdl_audio_s16sys() == SDL_AudioFormat(AUDIO_S16LSB))
    }

    @Test func curlLinksAndAnswers() {
        #expect(mp_curl_global_init_all() == CURLE_OK)
        let info = mp_curl_version_info()!.pointee
        #expect(String(cString: info.version).hasPrefix("7.") || String(cString: info.version).hasPrefix("8."))
        // The build we link must speak TLS, or https feeds cannot work.
        #expect(info.ssl_version != nil)

        let handle = curl_easy_init()
        #expect(handle != nil)
        #expect(mp_curl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 5) == CURLE_OK)
        #expect(mp_curl_easy_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
        #expect(mp_curl_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, 1 << 20) == CURLE_OK)
        var code = -1
        #expect(mp_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK)
        #expect(code == 0)
        curl_easy_cleanup(handle)
    }
}
