#!/bin/sh
# Builds the libFuzzer targets in Fuzz/ with AddressSanitizer and runs each
# for a bounded time on its seed corpus (Fuzz/corpus/TARGET, never written:
# new inputs go to .build/fuzz/corpus/TARGET).
#   scripts/fuzz.sh [SECONDS]     default 60 per target
#   scripts/fuzz.sh --build       build the targets, run none
# A crash stops the run with libFuzzer's report and the input that caused it
# (.build/fuzz/crash-*); turn it into a regression test.
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build_only=""
[ "$seconds" = "--build" ] && build_only=1
SWIFTC="${SWIFTC:-$(command -v swiftc 2>/dev/null || echo /opt/swift/usr/bin/swiftc)}"
CLANG="${CLANG:-$(dirname "$SWIFTC")/clang}"
out=.build/fuzz
mkdir -p "$out"
rm -f "$out"/crash-*
flags="-sanitize=fuzzer,address -O -parse-as-library -package-name mediaplay -I $out -I Sources/CXML/include -I Sources/CLinux"

# fresh OUTPUT DEPENDENCIES -- COMMAND...: runs COMMAND unless OUTPUT was
# made by the same command (its text kept beside it, written when it
# succeeded) after every file the command names and every file in
# DEPENDENCIES last changed: an edit rebuilds only what it reaches, and a
# second run rebuilds nothing. (The kept text's time is the build's: swiftc
# leaves an output it would write unchanged as it was.)
# The C shims' headers and module maps reach every module that imports
# them, and the toolchain every output.
shims=$(find Sources/CLinux Sources/CFFmpeg Sources/CSDL2 Sources/CChafa Sources/CXML/include -type f | sort)
toolchain=$("$SWIFTC" --version 2>&1 | head -1)
fresh() {
    made="$1"; dependencies="$2"; shift 3
    if [ -f "$made" ] && [ -f "$made.command" ] && [ "$(cat "$made.command")" = "$toolchain $*" ]; then
        stale=""
        # shellcheck disable=SC2086
        for file in "$@" $dependencies $shims; do
            if [ -f "$file" ] && [ "$file" -nt "$made.command" ]; then stale=1; break; fi
        done
        [ -z "$stale" ] && return 0
    fi
    # A failed build leaves nothing behind to be taken for its output.
    rm -f "$made" "$made.command"
    "$@" || return 1
    printf '%s' "$toolchain $*" > "$made.command"
}

# module NAME "DEPENDENCIES" SOURCES...: one module's sources as an instrumented object.
module() {
    name="$1"; dependencies="$2"; shift 2
    objects=""
    for dependency in $dependencies; do objects="$objects $out/$dependency.o $out/$dependency.swiftmodule"; done
    fresh "$out/$name.o" "$objects" -- "$SWIFTC" $flags -wmo -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" -c "$@" -o "$out/$name.o"
}
module MediaModel "" Sources/MediaModel/*.swift
module MediaTerminal "MediaModel" Sources/MediaTerminal/*.swift
# libxml2's side of XML feeds and UPnP answers (itself loaded with dlopen, uninstrumented).
cxml=""
for source in libxml_api mp_xml mp_upnp; do
    fresh "$out/CXML-$source.o" "Sources/CXML/libxml_api.h" -- "$CLANG" -fsanitize=fuzzer-no-link,address -O1 -I Sources/CXML/include -I /usr/include/libxml2 -c "Sources/CXML/$source.c" -o "$out/CXML-$source.o"
    cxml="$cxml $out/CXML-$source.o"
done
module MediaFeed "MediaModel MediaTerminal" Sources/MediaFeed/*.swift
# The player's and store's vocabulary, which the engine speaks.
module MediaInterfaces "MediaModel" Sources/MediaInterfaces/*.swift
# The three modules above the feed reader, side by side (two cores).
feed="MediaFeed MediaModel MediaTerminal"
module MediaControl "$feed" Sources/MediaControl/ControlRequest.swift Sources/MediaControl/ControlReplies.swift Sources/MediaControl/ControlPaths.swift Sources/MediaControl/LineSplitter.swift &
control=$!
module MediaSession "$feed" Sources/MediaSession/Script.swift &
session=$!
# The engine with its C libraries (FFmpeg, SDL, chafa), for the media probe.
cflags=""
for flag in $(pkg-config --cflags chafa); do cflags="$cflags -Xcc $flag"; done
# shellcheck disable=SC2086
# (-enable-testing: the subtitle target reaches the track reader inside.)
module MediaEngine "$feed MediaInterfaces" -enable-testing -I Sources/CFFmpeg -I Sources/CSDL2 -I Sources/CChafa -I Sources/CLinux $cflags $(find Sources/MediaEngine -name '*.swift' | sort)
wait "$control"
wait "$session"
model="$out/MediaModel.o $out/MediaTerminal.o$cxml"

# target NAME HARNESS OBJECTS...
target() {
    name="$1"; harness="$2"; shift 2
    objects=""
    for argument in "$@"; do case "$argument" in *.o) objects="$objects $argument" ;; esac; done
    fresh "$out/fuzz-$name" "$objects" -- "$SWIFTC" $flags "$harness" "$@" -o "$out/fuzz-$name" > "$out/link-$name.log" 2>&1 || {
        grep -v "Cannot export local symbol" "$out/link-$name.log" >&2
        echo "fuzz $name: cannot build the target" >&2
        return 1
    }
}
# Linked two at a time; a failed link fails the script (a bare `wait` would not).
target feed Fuzz/FeedDecoderFuzz.swift "$out/MediaFeed.o" $model &
linking=$!
target request Fuzz/ControlRequestFuzz.swift "$out/MediaControl.o" "$out/MediaFeed.o" $model
wait "$linking"
target script Fuzz/ScriptParserFuzz.swift "$out/MediaSession.o" "$out/MediaFeed.o" $model &
linking=$!
target keys Fuzz/KeyDecoderFuzz.swift "$out/MediaTerminal.o" "$out/MediaModel.o"
wait "$linking"
target numbers Fuzz/NumbersFuzz.swift "$out/MediaControl.o" "$out/MediaFeed.o" $model &
linking=$!
# shellcheck disable=SC2086
target media Fuzz/MediaProbeFuzz.swift -I Sources/CFFmpeg -I Sources/CSDL2 -I Sources/CChafa -I Sources/CLinux $cflags \
    "$out/MediaEngine.o" "$out/MediaInterfaces.o" "$out/MediaFeed.o" $model -lavformat -lavcodec -lavutil -lswresample -lswscale -lSDL2 -lchafa -lglib-2.0
wait "$linking"
# A Browse answer straight into the C reader (a C harness, linked by clang).
# shellcheck disable=SC2086
fresh "$out/fuzz-upnp" "$cxml" -- "$CLANG" -fsanitize=fuzzer,address -O1 -I Sources/CXML/include Fuzz/UPnPAnswerFuzz.c $cxml -ldl -o "$out/fuzz-upnp" > "$out/link-upnp.log" 2>&1 &
linking=$!
# shellcheck disable=SC2086
target subtitles Fuzz/SubtitleFileFuzz.swift -I Sources/CFFmpeg -I Sources/CSDL2 -I Sources/CChafa -I Sources/CLinux $cflags \
    "$out/MediaEngine.o" "$out/MediaInterfaces.o" "$out/MediaFeed.o" $model -lavformat -lavcodec -lavutil -lswresample -lswscale -lSDL2 -lchafa -lglib-2.0
wait "$linking" || { grep -v "Cannot export local symbol" "$out/link-upnp.log" >&2; echo "fuzz upnp: cannot build the target" >&2; exit 1; }

[ -n "$build_only" ] && exit 0

# run NAME: one target for its time, its report in $out/run-NAME.log.
run() {
    name="$1"
    if [ ! -x "$out/fuzz-$name" ]; then
        echo "fuzz $name: the target was not built" >&2
        return 1
    fi
    mkdir -p "$out/corpus/$name"
    # A full run (make fuzz) gives the media probe and the number
    # conversions a million inputs each, however long that takes them.
    limits="-max_total_time=$seconds"
    case "$name" in numbers|media) [ "$seconds" -ge 60 ] && limits="-runs=1000000 -max_total_time=$((seconds * 8))" ;; esac
    # A subtitle file from a remote feed: no run over 1 s, no allocation
    # over 256 MB; a million of them (about 20 minutes). fontconfig's caches,
    # made once and never freed, are no leak of a run's.
    bounds="-timeout=10 -rss_limit_mb=2048"
    # (The short pass CI makes keeps the others' 10 s timeout: a run slowed
    # by a busy machine is no finding.)
    if [ "$name" = subtitles ]; then
        bounds="-timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=256 -detect_leaks=0"
        [ "$seconds" -ge 60 ] && limits="-runs=1000000 -max_total_time=$((seconds * 40))" && bounds="-timeout=1 -rss_limit_mb=1024 -malloc_limit_mb=256 -detect_leaks=0"
    fi
    echo "fuzz $name: $limits" > "$out/run-$name.log"
    # shellcheck disable=SC2086
    maxlen=8192; [ "$name" = numbers ] && maxlen=512
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=$([ "$name" = subtitles ] && echo 0 || echo 1)" \
    "$out/fuzz-$name" $limits -max_len=$maxlen $bounds \
        -artifact_prefix="$out/crash-$name-" -print_final_stats=1 "$out/corpus/$name" "Fuzz/corpus/$name" 2>&1 \
        | grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|ERROR|SUMMARY|Test unit written" | grep -v "JXL_" >> "$out/run-$name.log" || true
}

# Two at a time (two cores); each target's time is its own, so a pair takes
# as long as one.
for pair in "feed request" "script keys" "numbers media" "subtitles upnp"; do
    running=""
    for name in $pair; do
        run "$name" &
        running="$running $!"
    done
    for job in $running; do wait "$job"; done
    for name in $pair; do cat "$out/run-$name.log"; done
done
if ls "$out"/crash-* >/dev/null 2>&1; then
    echo "fuzz: found a crash, see $(ls "$out"/crash-*)" >&2
    exit 1
fi
