#!/bin/sh
# The screenshot of browse in docs/screenshots/browse.png (the AppStream
# metainfo's): a music folder made here with the ffmpeg CLI (albums with
# covers drawn by its test sources), shown by `mediaplay browse` in tmux at
# 100x30 with colour-block pictures, captured with its colours and drawn as
# a PNG by scripts/render-terminal.py (Pillow, in a venv under .build).
#   scripts/screenshot-browse.sh [OUT.png]
set -eu
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots/browse.png}
program=.build/debug/mediaplay
[ -x "$program" ] || { echo "screenshot-browse: build first (make build)" >&2; exit 69; }
work=$(mktemp -d)
trap 'tmux -L screenshot kill-server 2>/dev/null; rm -rf "$work"' EXIT

music="$work/Music"
album() { # folder artist album cover-source title...
    folder="$music/$1"; artist=$2; name=$3; cover=$4; shift 4
    mkdir -p "$folder"
    ffmpeg -v error -f lavfi -i "$cover" -frames:v 1 "$folder/cover.png"
    track=1
    for title in "$@"; do
        ffmpeg -v error -f lavfi -i "sine=frequency=$((220 * track)):duration=$((100 + 37 * track))" -i "$folder/cover.png" \
            -map 0:a -map 1:v -c:v png -disposition:v attached_pic -c:a flac \
            -metadata title="$title" -metadata artist="$artist" -metadata album="$name" -metadata track="$track" \
            "$folder/$(printf %02d "$track") $title.flac"
        track=$((track + 1))
    done
}
album "Mandelbrot Quartet - Deep Zoom" "Mandelbrot Quartet" "Deep Zoom" "mandelbrot=size=300x300" "Seahorse Valley" "Elephant Valley" "Mini Brot"
album "Cellular - Rule 110" "Cellular" "Rule 110" "cellauto=rule=110:size=300x300,format=rgb24,scale=300:300" "Gliders" "Still Life"
album "Test Card Ensemble - Bars" "Test Card Ensemble" "Bars" "testsrc2=size=300x300" "Colour Bars" "Ramp"
album "Life - Generations" "Life" "Generations" "life=size=300x300:mold=10:ratio=0.5:life_color=#4ab0ff:death_color=#102030,scale=300:300" "Spring" "Summer" "Autumn"

export TERM=xterm-256color COLORTERM=truecolor NO_COLOR=
unset NO_COLOR
tmux -L screenshot new-session -d -x 100 -y 30 \
    "XDG_CACHE_HOME=$work/cache XDG_STATE_HOME=$work/state $program browse --feed $music --images blocks; sleep 60"
# browse draws its covers as they are read: the screen is looked at every
# half second until a cover's title shows and the screen holds still.
previous=""
for _ in $(seq 1 40); do
    sleep 0.5
    screen=$(tmux -L screenshot capture-pane -e -p -t 0)
    if [ "$screen" = "$previous" ] && printf %s "$screen" | grep -q "Deep Zoom"; then break; fi
    previous=$screen
done
tmux -L screenshot send-keys -t 0 Right
sleep 1
tmux -L screenshot capture-pane -e -p -t 0 > "$work/screen.txt"

venv=.build/screenshot-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q pillow; }
mkdir -p "$(dirname "$out")"
"$venv/bin/python" scripts/render-terminal.py "$work/screen.txt" "$out" --columns 100 --rows 30
echo "$out"
