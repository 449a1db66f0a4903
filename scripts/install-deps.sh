#!/bin/sh
# Installs the Debian packages mediaplay needs, if any are missing (a font
# for libass: subtitles drawn into pictures).
#   scripts/install-deps.sh         build and run dependencies
#   scripts/install-deps.sh --test  also the ffmpeg CLI (test fixtures), tmux (browse tests),
#                                   dbus-daemon, dbus-monitor and playerctl (MPRIS tests), and
#                                   desktop-file-utils and xdg-utils (the desktop entry), mpd, mpc,
#                                   ncmpcpp and python3-mpd (the MPD protocol's tests: the real MPD and three clients)
#                                   yt-dlp (web pages resolved as mpv does; make bench installs mpv itself)
#                                   supysonic and minidlna (the Subsonic and DLNA feeds' tests: real servers), iproute2 (a network namespace for SSDP)
#                                   gdb (the stacks of a hung test's programs: TestKit's ChildProcess, scripts/watchdog.sh)
#   scripts/install-deps.sh --package  what `make deb` and `make deb-check` use
# As root it runs apt-get; otherwise it prints the exact command and exits 69
# (EX_UNAVAILABLE), so nothing is half-installed behind the user's back.
set -eu

packages="pkg-config libavformat-dev libavcodec-dev libavutil-dev libavfilter-dev libswresample-dev libswscale-dev libsdl2-dev libcurl4-openssl-dev libsqlite3-dev libchafa-dev libsystemd-dev libxml2-dev ca-certificates fontconfig fonts-dejavu-core"
if [ "${1:-}" = "--test" ]; then
    packages="$packages ffmpeg tmux dbus-daemon dbus-bin playerctl desktop-file-utils xdg-utils mpd mpc ncmpcpp python3-mpd yt-dlp supysonic minidlna iproute2 gdb"
fi
# The Debian package: building it (dpkg-shlibdeps, strip, icons rendered
# from the SVG) and checking it (lintian, appstreamcli, man, systemd's
# socket activation and unit checks).
if [ "${1:-}" = "--package" ]; then
    packages="dpkg-dev binutils lintian librsvg2-bin appstream man-db systemd desktop-file-utils ffmpeg python3"
fi

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "mediaplay: missing system packages:$missing" >&2
    echo "mediaplay: install them with: sudo apt-get install -y$missing" >&2
    exit 69
fi

echo "mediaplay: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
