#!/bin/sh
# Makes the small media the bundled feed (media.json) begins with, so that
# `mediaplay play 1` works offline on a fresh clone. Everything is drawn by
# the ffmpeg CLI's own generators (no recording of anyone's work): the
# files are the project's, in the public domain (CC0). Run again only to
# change them; the results are committed in Media/.
set -eu
cd "$(dirname "$0")/../Media"
ff="ffmpeg -hide_banner -loglevel error -y"

# A little tune: eight plucked notes (a C major arpeggio up and down), each
# shaped to silence at its edges so the changes of pitch never click.
notes='261.63*between(N,0,0)+329.63*between(N,1,1)+392.00*between(N,2,2)+523.25*between(N,3,3)+659.25*between(N,4,4)+523.25*between(N,5,5)+392.00*between(N,6,6)+329.63*between(N,7,7)'
tune="0.4*exp(-3*mod(t,0.6))*sin(PI*mod(t,0.6)/0.6)*sin(2*PI*t*($(echo "$notes" | sed 's/N/floor(mod(t,4.8)\/0.6)/g')))"
$ff -f lavfi -i "aevalsrc=exprs='$tune':sample_rate=48000:duration=14.4" \
    -metadata title="Arpeggio in C" -metadata artist="mediaplay" -metadata track=1 \
    -c:a libopus -b:a 48k tune.opus

# A short video: a slow zoom into the Mandelbrot set with the tune under it.
$ff -f lavfi -i "mandelbrot=size=320x180:rate=24:start_scale=3:end_scale=0.3:end_pts=200" \
    -i tune.opus -t 8 -map 0:v -map 1:a \
    -metadata title="Into the Mandelbrot set" \
    -c:v libx264 -preset slow -crf 32 -pix_fmt yuv420p -c:a aac -b:a 48k -movflags +faststart zoom.mp4

# Two pictures: the Mandelbrot set, and a pattern of colour bars and rings.
$ff -f lavfi -i "mandelbrot=size=640x360:start_scale=2.5:end_pts=1" -frames:v 1 -q:v 5 mandelbrot.jpg
$ff -f lavfi -i "testsrc2=size=640x360:duration=0.1" -frames:v 1 -q:v 5 pattern.jpg

ls -l
