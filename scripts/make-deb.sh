#!/bin/sh
# Builds mediaplay_VERSION_ARCH.deb from this checkout with dpkg-deb: the
# three programs, the bundled feed and media, man pages generated from the
# commands (scripts/make-man.py), completions, the desktop entry, icons,
# AppStream metainfo and the systemd user units (desktop/, packaging/).
#   scripts/make-deb.sh [--configuration release|debug] [--output DIR]
# (SWIFTFLAGS in the environment go to swift build, as in the Makefile.)
# Depends is computed by dpkg-shlibdeps from the programs' shared libraries
# (Swift's own are linked in). CI packages its debug build (the release
# build would double its compile time); `make deb` makes a release.
set -eu

configuration=release
output=.
while [ $# -gt 0 ]; do
    case "$1" in
        --configuration) configuration=$2; shift 2 ;;
        --output) output=$2; shift 2 ;;
        *) echo "make-deb.sh: unknown option $1 (see the comment at its top)" >&2; exit 64 ;;
    esac
done

mkdir -p "$output"
output=$(cd "$output" && pwd)
cd "$(dirname "$0")/.."
swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
version=$(sed -n 's/.*mediaplayVersion = "\(.*\)".*/\1/p' Sources/MediaplayCommandLine/Version.swift)
arch=$(dpkg --print-architecture)
work=.build/deb
root=$work/root
rm -rf "$work"
mkdir -p "$root/DEBIAN" "$work/source/debian"

for program in mediaplay-core mediaplay-cache mediaplay; do
    # shellcheck disable=SC2086
    "$swift" build -c "$configuration" --product "$program" ${SWIFTFLAGS:-} >&2
done
built=.build/$configuration

# The programs, stripped (their debug information stays in the build folder).
install -D -m 0755 "$built/mediaplay" "$root/usr/bin/mediaplay"
install -D -m 0755 "$built/mediaplay-core" "$root/usr/libexec/mediaplay/mediaplay-core"
install -D -m 0755 "$built/mediaplay-cache" "$root/usr/libexec/mediaplay/mediaplay-cache"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/mediaplay" "$root/usr/libexec/mediaplay/mediaplay-core" "$root/usr/libexec/mediaplay/mediaplay-cache"

# What plays with no feed named.
install -D -m 0644 media.json "$root/usr/share/mediaplay/media.json"
install -d "$root/usr/share/mediaplay/Media"
install -m 0644 Media/tune.opus Media/zoom.mp4 Media/mandelbrot.jpg Media/pattern.jpg "$root/usr/share/mediaplay/Media/"

# Man pages, from the commands themselves and docs/CONFIG.md.
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" +%Y-%m-%d)
python3 scripts/make-man.py "$built/mediaplay-core" "$work/man" --date "$date" --version "$version" >&2
install -d "$root/usr/share/man/man1" "$root/usr/share/man/man5"
for page in "$work"/man/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done
gzip -9n < "$work/man/mediaplay-config.5" > "$root/usr/share/man/man5/mediaplay-config.5.gz"

# Completions, where each shell looks for them.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
# (bash reads a completion file with `source`: no #! line.)
"$built/mediaplay" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/mediaplay"
"$built/mediaplay" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_mediaplay"
"$built/mediaplay" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/mediaplay.fish"
chmod 0644 "$root"/usr/share/bash-completion/completions/* "$root"/usr/share/zsh/vendor-completions/* "$root"/usr/share/fish/vendor_completions.d/*

# The desktop: entry, icons (PNGs rendered from the SVG), AppStream metainfo.
install -D -m 0644 desktop/mediaplay.desktop "$root/usr/share/applications/mediaplay.desktop"
install -D -m 0644 desktop/icons/mediaplay.svg "$root/usr/share/icons/hicolor/scalable/apps/mediaplay.svg"
install -D -m 0644 desktop/icons/mediaplay-symbolic.svg "$root/usr/share/icons/hicolor/symbolic/apps/mediaplay-symbolic.svg"
for size in 16 22 24 32 48 64 128 256 512; do
    install -d "$root/usr/share/icons/hicolor/${size}x${size}/apps"
    rsvg-convert --width "$size" --height "$size" desktop/icons/mediaplay.svg -o "$root/usr/share/icons/hicolor/${size}x${size}/apps/mediaplay.png"
done
install -D -m 0644 desktop/mediaplay.metainfo.xml "$root/usr/share/metainfo/io.github.mediaplay.mediaplay.metainfo.xml"

# The background player as a socket-activated user service.
install -D -m 0644 packaging/systemd/mediaplay.socket "$root/usr/lib/systemd/user/mediaplay.socket"
install -D -m 0644 packaging/systemd/mediaplay.service "$root/usr/lib/systemd/user/mediaplay.service"

# Debian's own files.
# The licences of what the programs link in, from the packages' own files.
toolchain=$(dirname "$(dirname "$(readlink -f "$swift")")")
python3 - "$toolchain/share/swift/LICENSE.txt" > "$work/copyright" <<'PYTHON'
import re, sys
def text(path):
    lines = open(path).read().rstrip().split("\n")
    return "\n".join(" " + line.rstrip() if line.strip() else " ." for line in lines)
template = open("packaging/debian/copyright.in").read().replace("@SWIFT_LICENSE@", sys.argv[1])
def exception(path):
    # The Runtime Library Exception alone: the Apache License itself is in common-licenses.
    whole = open(path).read()
    part = whole[whole.index("## Runtime Library Exception"):].split("\n", 1)[1].strip()
    return "\n".join(" " + line.strip() if line.strip() else " ." for line in part.split("\n") if line.strip())
template = re.sub(r"^@EXCEPTION:(.+?)@$", lambda m: exception(m.group(1)), template, flags=re.M)
print(re.sub(r"^@TEXT:(.+?)@$", lambda m: text(m.group(1)), template, flags=re.M), end="")
PYTHON
install -D -m 0644 "$work/copyright" "$root/usr/share/doc/mediaplay/copyright"
gzip -9n < packaging/debian/changelog > "$work/changelog.Debian.gz"
install -m 0644 "$work/changelog.Debian.gz" "$root/usr/share/doc/mediaplay/changelog.Debian.gz"

# Depends from the programs' libraries (dpkg-shlibdeps reads debian/control).
printf 'Source: mediaplay\n\nPackage: mediaplay\nArchitecture: any\n' > "$work/source/debian/control"
shlibs=$(cd "$work/source" && dpkg-shlibdeps -O -e../root/usr/bin/mediaplay -e../root/usr/libexec/mediaplay/mediaplay-core -e../root/usr/libexec/mediaplay/mediaplay-cache)
depends=$(printf '%s\n' "$shlibs" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb.sh: dpkg-shlibdeps found no libraries: $shlibs" >&2; exit 1; }
# What the programs open with dlopen, which dpkg-shlibdeps cannot see:
# FFmpeg, SDL2 and libcurl (loaded on their first call, CMediaLoader), libavfilter
# (filters, loudness), libass (subtitles drawn into pictures), libxml2 (XML
# feeds), each as its package's shlibs file names it.
major() { pkg-config --modversion "$1" | cut -d. -f1; }
for library in "libavformat $(major libavformat)" "libavcodec $(major libavcodec)" "libavutil $(major libavutil)" \
    "libswresample $(major libswresample)" "libswscale $(major libswscale)" "libSDL2-2.0 0" \
    "libavfilter $(major libavfilter)" "libass 9" "libxml2 2" "libcurl 4"; do
    set -- $library
    path=$(ldconfig -p | awk -v soname="$1.so.$2" '$1 == soname { print $NF; exit }')
    package=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
    dependency=$(cat /var/lib/dpkg/info/"$package"*.shlibs 2>/dev/null | awk -v name="$1" -v major="$2" '$1 == name && $2 == major { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }')
    [ -n "$dependency" ] || { echo "make-deb.sh: no package found for $1.so.$2 (install it)" >&2; exit 1; }
    depends="$depends, $dependency"
done
installed=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$installed/" packaging/debian/control.in > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

mkdir -p "$output"
package="$output/mediaplay_${version}_${arch}.deb"
# xz for a release; DEB_COMPRESSION=gzip where only a check reads it (CI).
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$package" >&2
echo "$package"
