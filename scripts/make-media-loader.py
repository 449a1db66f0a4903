#!/usr/bin/env python3
"""Writes Sources/CMediaLoader/media_loader_functions.c: one definition for
each FFmpeg, SDL2 and libcurl function the programs call, which loads its library
with dlopen on the first call and then calls the library's own function.

The programs link none of these libraries (about 100 of the 170 a process
loaded at start, 30 ms of every start on this machine kind): a `status`
or a local `list` never loads them; a play loads FFmpeg and SDL when it
first opens a file, and any command libcurl when it first asks a server. The prototypes come from the libraries' own headers
(clang's AST), and the compiler checks each definition against them.

The programs', tests' and benchmarks' calls all count. A link error
"undefined reference to `av_foo`" means a new function is in use: add it to FUNCTIONS below and run this script again (clang from the
Swift toolchain and the -dev packages of scripts/install-deps.sh).
"""
import json
import os
import subprocess
import sys
import tempfile

FUNCTIONS = {
    "MP_AVFORMAT": """av_find_best_stream av_read_frame av_stream_get_side_data avformat_alloc_context
        avformat_close_input avformat_find_stream_info avformat_open_input avformat_seek_file
        avio_alloc_context avio_context_free avio_open2
        avformat_version avformat_alloc_output_context2 avformat_free_context avformat_new_stream
        avformat_write_header av_interleaved_write_frame av_write_trailer avio_open avio_closep""",
    "MP_AVCODEC": """av_packet_alloc av_packet_free av_packet_move_ref av_packet_ref av_packet_unref
        avcodec_alloc_context3 avcodec_decode_subtitle2 avcodec_descriptor_get avcodec_find_decoder
        avcodec_free_context avcodec_get_name avcodec_open2 avcodec_parameters_to_context
        avcodec_receive_frame avcodec_send_packet avsubtitle_free
        avcodec_version avcodec_find_encoder avcodec_encode_subtitle avcodec_parameters_from_context av_new_packet""",
    "MP_AVUTIL": """av_buffer_pool_get av_buffer_pool_init av_buffer_pool_uninit av_channel_layout_default
        av_channel_layout_describe av_channel_layout_uninit av_compare_ts av_dict_copy av_dict_free
        av_dict_get av_dict_set av_display_rotation_get av_frame_alloc av_frame_copy av_frame_copy_props
        av_frame_free av_frame_get_buffer av_frame_is_writable av_frame_unref av_free av_get_sample_fmt_name
        av_image_copy_to_buffer av_image_get_buffer_size av_log_set_level av_malloc av_md5_sum av_opt_set
        av_opt_set_int av_pix_fmt_desc_get av_rescale_q av_rescale_q_rnd av_strdup av_strerror
        avutil_version av_version_info av_mallocz""",
    "MP_SWRESAMPLE": "swr_alloc_set_opts2 swr_convert swr_free swr_get_out_samples swr_init swresample_version",
    "MP_SWSCALE": "sws_freeContext sws_getCachedContext sws_getContext sws_scale swscale_version",
    "MP_SDL2": """SDL_CloseAudioDevice SDL_CreateRenderer SDL_CreateTexture SDL_CreateWindow SDL_Delay
        SDL_DestroyRenderer SDL_DestroyTexture SDL_DestroyWindow SDL_GetCurrentVideoDriver
        SDL_GetDisplayUsableBounds SDL_GetError SDL_GetRendererInfo SDL_GetRendererOutputSize
        SDL_GetWindowSize SDL_InitSubSystem SDL_LockAudioDevice SDL_LogSetAllPriority SDL_OpenAudioDevice
        SDL_PauseAudioDevice SDL_PollEvent SDL_PushEvent SDL_QuitSubSystem SDL_RegisterEvents
        SDL_RenderClear SDL_RenderCopy SDL_RenderCopyEx SDL_RenderPresent SDL_SetRenderDrawColor
        SDL_SetTextureBlendMode SDL_SetWindowTitle SDL_StartTextInput SDL_UnlockAudioDevice
        SDL_UpdateTexture SDL_UpdateYUVTexture SDL_WaitEvent SDL_WasInit SDL_GetVersion""",
    # Its variadic calls (curl_easy_setopt, ...) are CCurl's typed wrappers, in curl_loader.c.
    "MP_CURL": """curl_easy_cleanup curl_easy_init curl_easy_perform curl_easy_strerror curl_global_init
        curl_multi_add_handle curl_multi_info_read curl_multi_init curl_multi_perform curl_multi_poll
        curl_multi_remove_handle curl_multi_wakeup curl_slist_append curl_slist_free_all curl_version_info""",
}

HEADERS = "#include \"media_loader_headers.h\"\n"


def declarations(root):
    """Each wanted function's return type and parameters, from clang's AST."""
    wanted = {name for names in FUNCTIONS.values() for name in names.split()}
    with tempfile.NamedTemporaryFile("w", suffix=".c", dir=root) as source:
        source.write(HEADERS)
        source.flush()
        dump = subprocess.run(
            ["clang", "-Xclang", "-ast-dump=json", "-fsyntax-only", "-I", root, source.name],
            check=True, capture_output=True, text=True).stdout
    found = {}
    for node in json.loads(dump)["inner"]:
        name = node.get("name")
        if node.get("kind") == "FunctionDecl" and name in wanted and name not in found:
            if node.get("variadic"):
                sys.exit(f"make-media-loader.py: {name} is variadic: wrap its va_list form instead")
            parameters = [(p.get("name") or f"p{i}", p["type"]["qualType"])
                          for i, p in enumerate(n for n in node.get("inner", []) if n.get("kind") == "ParmVarDecl")]
            whole = node["type"]["qualType"]
            found[name] = (whole[:whole.index("(")].strip(), parameters)
    missing = wanted - found.keys()
    if missing:
        sys.exit("make-media-loader.py: no declaration of " + ", ".join(sorted(missing)))
    return found


def declared(kind, name):
    """`int (*)(void *)` with a name becomes `int (*name)(void *)`."""
    if "(*)" in kind:
        return kind.replace("(*)", f"(*{name})", 1)
    return f"{kind} {name}" if not kind.endswith("*") else f"{kind}{name}"


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "CMediaLoader")
    found = declarations(root)
    lines = [
        "// Written by scripts/make-media-loader.py: do not edit by hand.",
        "// Each function loads its library on its first call (media_loader.c).",
        "",
        HEADERS.strip(),
        "",
    ]
    for library, names in FUNCTIONS.items():
        for name in names.split():
            result, parameters = found[name]
            signature = ", ".join(declared(kind, p) for p, kind in parameters) or "void"
            arguments = ", ".join(p for p, _ in parameters)
            call = f"((__typeof__(&{name}))mp_media_function({library}, \"{name}\", &slot))({arguments})"
            lines += [
                f"{result}{'' if result.endswith('*') else ' '}{name}({signature}) {{",
                "    static void *_Atomic slot;",
                f"    {'' if result == 'void' else 'return '}{call};",
                "}",
                "",
            ]
    with open(os.path.join(root, "media_loader_functions.c"), "w") as output:
        output.write("\n".join(lines))


main()
