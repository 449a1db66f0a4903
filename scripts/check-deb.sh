#!/bin/sh
# Checks a package as a user meets it:
#   scripts/check-deb.sh mediaplay_VERSION_ARCH.deb
# - lintian reports no error (its warnings are printed);
# - it holds the programs, a man page for every command, completions, the
#   desktop entry, icons, metainfo and the systemd user units;
# - installed with apt, for a fresh user (an empty home, PATH=/usr/bin:/bin):
#   `mediaplay list` lists the bundled feed and `mediaplay play 1` plays the
#   bundled tune sample for sample as ffmpeg decodes it; `man mediaplay`
#   reads; the desktop entry, the metainfo and both units validate;
# - the socket starts the player on the first client (systemd-socket-activate
#   stands in for the user's systemd, which a CI machine does not run);
# - `dpkg -r mediaplay` leaves none of its files behind.
# It installs into this machine's /usr and removes the package again: run it
# where that is fine (CI's fresh machine, a container), as root.
set -eu

deb=$(readlink -f "$1")
fail() { echo "check-deb: $*" >&2; exit 1; }
work=$(mktemp -d)
daemon=""
cleanup() {
    set +e
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
    dpkg -s mediaplay >/dev/null 2>&1 && dpkg -r mediaplay >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

echo "check-deb: lintian" >&2
lintian --tag-display-limit 0 --allow-root "$deb" > "$work/lintian.txt" 2>&1 || true
cat "$work/lintian.txt" >&2
grep -q '^E: ' "$work/lintian.txt" && fail "lintian reports errors (above)"

echo "check-deb: contents" >&2
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' > "$work/contents"
for path in /usr/bin/mediaplay /usr/libexec/mediaplay/mediaplay-core /usr/libexec/mediaplay/mediaplay-cache \
    /usr/share/mediaplay/media.json /usr/share/mediaplay/Media/tune.opus /usr/share/man/man1/mediaplay.1.gz \
    /usr/share/man/man5/mediaplay-config.5.gz /usr/share/bash-completion/completions/mediaplay \
    /usr/share/zsh/vendor-completions/_mediaplay /usr/share/fish/vendor_completions.d/mediaplay.fish \
    /usr/share/applications/mediaplay.desktop /usr/share/icons/hicolor/scalable/apps/mediaplay.svg \
    /usr/share/icons/hicolor/symbolic/apps/mediaplay-symbolic.svg /usr/share/icons/hicolor/48x48/apps/mediaplay.png \
    /usr/share/metainfo/io.github.mediaplay.mediaplay.metainfo.xml /usr/lib/systemd/user/mediaplay.socket \
    /usr/lib/systemd/user/mediaplay.service /usr/share/doc/mediaplay/copyright /usr/share/doc/mediaplay/changelog.Debian.gz; do
    grep -qx "$path" "$work/contents" || fail "the package lacks $path"
done

echo "check-deb: installing" >&2
dpkg -s mediaplay >/dev/null 2>&1 && fail "mediaplay is installed already (remove it first: dpkg -r mediaplay)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null

# Nothing of the Swift toolchain is needed: every library the programs load is Debian's.
for program in /usr/bin/mediaplay /usr/libexec/mediaplay/mediaplay-core /usr/libexec/mediaplay/mediaplay-cache; do
    env -i PATH=/usr/bin:/bin ldd "$program" > "$work/ldd.txt" 2>&1 || fail "ldd $program: $(cat "$work/ldd.txt")"
    grep -q "not found\|swift" "$work/ldd.txt" && fail "$program needs a library Debian does not provide: $(grep "not found\|swift" "$work/ldd.txt")"
done

# Every command has its page (the commands as the installed program declares them).
/usr/libexec/mediaplay/mediaplay-core --experimental-dump-help > "$work/commands.json"
python3 - "$work/commands.json" > "$work/pages" <<'PYTHON'
import json, sys
def walk(path, command):
    yield "-".join(path)
    for sub in command.get("subcommands", []):
        if sub["commandName"] != "help":
            yield from walk(path + [sub["commandName"]], sub)
root = json.load(open(sys.argv[1]))["command"]
print("\n".join(walk([root["commandName"]], root)))
PYTHON
[ "$(wc -l < "$work/pages")" -gt 30 ] || fail "only $(wc -l < "$work/pages") commands found"
while read -r page; do
    [ -f "/usr/share/man/man1/$page.1.gz" ] || fail "no man page for $page"
done < "$work/pages"
MANWIDTH=80 man /usr/share/man/man1/mediaplay.1.gz 2>/dev/null | grep -q "toggle" || fail "man mediaplay does not describe the commands"

# A fresh user: an empty home, the system's PATH, no Swift.
home="$work/home"
mkdir -p "$home" "$work/run"
chmod 0700 "$work/run"
as_user() {
    env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 XDG_RUNTIME_DIR="$work/run" \
        SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=/dev/null SDL_VIDEODRIVER=dummy "$@"
}
echo "check-deb: mediaplay list, play 1" >&2
as_user mediaplay list > "$work/list.txt" || fail "mediaplay list failed: $(cat "$work/list.txt")"
grep -q "Arpeggio in C" "$work/list.txt" || fail "mediaplay list does not show the bundled feed: $(cat "$work/list.txt")"
as_user mediaplay play 1 --audio-out "$work/tune.wav" --untimed || fail "mediaplay play 1 failed"
ffmpeg -v error -nostdin -i "$work/tune.wav" -f s16le - > "$work/played.pcm"
ffmpeg -v error -nostdin -i /usr/share/mediaplay/Media/tune.opus -map 0:a:0 -f s16le - > "$work/reference.pcm"
cmp -s "$work/played.pcm" "$work/reference.pcm" || fail "play 1's recording differs from ffmpeg's decoding of the bundled tune"

echo "check-deb: desktop entry, metainfo, units" >&2
desktop-file-validate /usr/share/applications/mediaplay.desktop || fail "the desktop entry does not validate"
appstreamcli validate --no-net /usr/share/metainfo/io.github.mediaplay.mediaplay.metainfo.xml >&2 || fail "the metainfo does not validate"
XDG_RUNTIME_DIR="$work/run" systemd-analyze --user verify /usr/lib/systemd/user/mediaplay.socket /usr/lib/systemd/user/mediaplay.service \
    > "$work/verify.txt" 2>&1 || { cat "$work/verify.txt" >&2; fail "systemd-analyze verify refuses the units"; }

echo "check-deb: socket activation" >&2
socket="$work/run/mediaplay/mediaplay.sock"
mkdir -m 0700 "$work/run/mediaplay"
# (It passes on only the variables named, as the user manager sets them.)
as_user systemd-socket-activate -E HOME -E PATH -E LANG -E XDG_RUNTIME_DIR -E SDL_AUDIODRIVER -E SDL_DISKAUDIOFILE -E SDL_VIDEODRIVER \
    -l "$socket" /usr/bin/mediaplay daemon --foreground > "$work/activate.txt" 2>&1 &
daemon=$!
# systemd-socket-activate says nothing when it listens: its socket's
# appearance is looked for every 50 ms, 10 s at most.
tries=0
while [ ! -S "$socket" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || fail "systemd-socket-activate made no socket: $(cat "$work/activate.txt")"
    sleep 0.05
done
as_user mediaplay status > "$work/status.txt" 2>&1 || fail "the first client did not start the player: $(cat "$work/status.txt" "$work/activate.txt")"
grep -q "passed by systemd" "$home/.local/state/mediaplay/daemon.log" || fail "the player did not take systemd's socket: $(cat "$home/.local/state/mediaplay/daemon.log")"
as_user mediaplay quit >/dev/null 2>&1 || fail "mediaplay quit failed"
wait "$daemon" || fail "the player did not end cleanly after quit: $(cat "$work/activate.txt")"
daemon=""
[ -S "$socket" ] || fail "quit removed systemd's socket"

echo "check-deb: removing" >&2
dpkg -r mediaplay >/dev/null
while read -r path; do
    [ -d "$path" ] && continue
    [ -e "$path" ] && fail "dpkg -r left $path"
done < "$work/contents"
[ -e /usr/libexec/mediaplay ] && fail "dpkg -r left /usr/libexec/mediaplay"
[ -e /usr/share/mediaplay ] && fail "dpkg -r left /usr/share/mediaplay"
echo "check-deb: $(basename "$deb") passes" >&2
