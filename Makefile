# mediaplay: two commands set everything up on a fresh Debian 12 machine.
#   make run    install what is missing, build, list the bundled feed
#   make test   the same, plus the ffmpeg CLI for fixtures, then run the tests
#   make demo   browse sample media served from this machine (no internet needed)

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFTFLAGS ?=
PREFIX ?= /usr/local

.PHONY: run test build release deps test-deps package-deps completions man install clean bench demo deb deb-check fuzz fuzz-build sanitize sanitize-address sanitize-address-build sanitize-programs sanitize-thread

run: deps build
	.build/debug/mediaplay list
	@echo "Try next: .build/debug/mediaplay play 1 (a tune that ships with mediaplay), .build/debug/mediaplay browse, or .build/debug/mediaplay play ~/Music"

# Two runs: everything in parallel, then the RealTimeTests target (the
# tests that play to a real device in real time: positions against the wall
# clock, every sample on time), alone and one test at a time, on a machine
# no longer busy with the rest (CI's sanitizer and fuzz builds, beside it,
# run at idle priority and take no cycle these want): on two cores, forty parallel ffmpeg and
# mediaplay processes would starve them, and side by side they made each
# other late (a play not ending within 10 s of q, a held response taken
# for a stalled link). Beside the suites that play in real time (the
# background player, browse, the device, MPRIS, terminal video, subtitles,
# unequal streams, loudness) it holds the tests timed against the wall
# clock that the busy run made late (two clients' timeouts within 8 s, a
# link's item still playing when status asks, a second process joining a
# transfer while it is under way), the session's window-close and
# progressive-playback tests (once, in the busy run, a slow link's output
# never ran dry before the link came back) and the cache's partial reads
# (they count requests around held and throttled responses, and whether a
# read asks for a ranged transfer depends on how fast the main one goes).

# The SDL drivers the unit suites use, set before the test process starts
# (see requireEnvironment in TestKit); the end-to-end tests give each
# program an environment of its own.
UNIT_ENV = SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=/dev/null SDL_VIDEODRIVER=dummy

# The end-to-end tests run the programs, built first (a test target cannot
# depend on a statically linked program).
test: test-deps build
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	$(UNIT_ENV) $(SWIFT) test --skip-build --skip RealTimeTests $(SWIFTFLAGS)
	$(UNIT_ENV) $(SWIFT) test --skip-build --no-parallel --filter RealTimeTests $(SWIFTFLAGS)

# libFuzzer with AddressSanitizer on the feed decoder, the control-protocol
# request decoder, the script parser and the terminal key decoder, each for
# FUZZ_SECONDS (a crash stops it and leaves the input in .build/fuzz/).
FUZZ_SECONDS ?= 60
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

# The fuzz targets built, none run.
fuzz-build:
	scripts/fuzz.sh --build

# The unit suites (everything but the end-to-end tests, which run the built
# programs) under AddressSanitizer, then under ThreadSanitizer, each in a
# build folder of its own. Leaks are not checked at exit here: the test
# process ends with long-lived objects (the transfer engine, SDL's and
# Foundation's own buffers) that LeakSanitizer would list.
# The suites that play in real time are left out too: slowed down by a
# sanitizer and run side by side, their timing does not hold. Of them, the
# progressive-playback tests that play untimed (all but the slow link) run
# under the sanitizers all the same, after the rest.
UNIT_SKIP = EndToEndTests\.|RealTimeTests\.
SANITIZED_REAL_TIME = --filter 'RealTimeTests\.ProgressiveTests/' --skip aSlowLinkBuffersThenResumesWithEverySample
sanitize: sanitize-address sanitize-thread

# CI runs this one: AddressSanitizer with UndefinedBehaviorSanitizer, the
# unit suites, then the programs themselves (built in the same folder) on
# the end-to-end paths that hand C the most buffers (SanitizedPathsTests:
# browse on a folder with covers, subtitles drawn, feeds listed, the
# background player's toggles); a report there fails the test.
# (swiftc has no UndefinedBehaviorSanitizer on Linux: it instruments the C
# targets and shims, its handlers in ASan's runtime; Swift traps overflow itself.)
# The packages' own C and C++ are left to their authors (scripts/ubsan-ignore.txt).
SANITIZERS = --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize=function -Xcc -fsanitize-ignorelist=$(CURDIR)/scripts/ubsan-ignore.txt
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Only what it runs is built: the test bundle and the three programs (not
# the benchmark or the demo, which the debug build has checked).
sanitize-address: sanitize-address-build
	$(UNIT_ENV) $(SANITIZER_ENV) $(SWIFT) test --skip-build $(SANITIZERS) --scratch-path .build-asan --skip '$(UNIT_SKIP)'
	$(UNIT_ENV) $(SANITIZER_ENV) $(SWIFT) test --skip-build $(SANITIZERS) --scratch-path .build-asan $(SANITIZED_REAL_TIME)
	$(MAKE) sanitize-programs

sanitize-address-build: test-deps
	$(SWIFT) build --product mediaplayPackageTests $(SANITIZERS) --scratch-path .build-asan $(SWIFTFLAGS)
	for program in $(PROGRAMS); do $(SWIFT) build --product $$program $(SANITIZERS) --scratch-path .build-asan $(SWIFTFLAGS) || exit 1; done

# The programs built with the sanitizers, end to end (after sanitize-address's build).
sanitize-programs:
	$(UNIT_ENV) $(SANITIZER_ENV) $(SWIFT) test --skip-build $(SANITIZERS) --scratch-path .build-asan --filter 'EndToEndTests.SanitizedPathsTests/'

sanitize-thread: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan $(SWIFTFLAGS)
	$(UNIT_ENV) $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --skip '$(UNIT_SKIP)'
	$(UNIT_ENV) $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan $(SANITIZED_REAL_TIME)

# Three programs: mediaplay (the client commands, no media libraries),
# mediaplay-cache (fetch and cache: libcurl, no FFmpeg or SDL) and
# mediaplay-core (everything else); mediaplay runs the other two by exec.
PROGRAMS = mediaplay-core mediaplay-cache mediaplay

build:
	for program in $(PROGRAMS); do $(SWIFT) build --product $$program $(SWIFTFLAGS) || exit 1; done

# An offline demo: sample media made by ffmpeg, served from a loopback
# server at 150 kB/s, opened in browse (needs a terminal).
demo: test-deps build
	$(SWIFT) build --product mediaplay-demo $(SWIFTFLAGS)
	.build/debug/mediaplay-demo .build/debug/mediaplay

# Benchmarks against curl, ffmpeg, ffplay, mpv, MPD and jq: release builds, side by side.
bench: export MEDIAPLAY_BENCH_RESULTS = $(CURDIR)/.build/bench-results.jsonl
bench: test-deps
	@command -v curl >/dev/null || apt-get install -y -qq curl
	@command -v jq >/dev/null || apt-get install -y -qq jq
	@command -v xmllint >/dev/null || apt-get install -y -qq libxml2-utils
	@test -x /usr/bin/time || apt-get install -y -qq time
	@command -v mpv >/dev/null && command -v mpd >/dev/null && command -v mpc >/dev/null || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mpv mpd mpc
	for program in $(PROGRAMS) mediaplay-bench; do $(SWIFT) build -c release --product $$program || exit 1; done
	rm -f .build/bench-results.jsonl
	.build/release/mediaplay-bench download --size-mib 200 --runs 3
	.build/release/mediaplay-bench playback --runs 3
	.build/release/mediaplay-bench control --runs 3
	.build/release/mediaplay-bench progressive --runs 3
	.build/release/mediaplay-bench feeds --runs 3
	.build/release/mediaplay-bench podcast --runs 5
	.build/release/mediaplay-bench folder --runs 3
	.build/release/mediaplay-bench library --runs 3
	.build/release/mediaplay-bench resume --runs 3
	.build/release/mediaplay-bench controls --runs 3
	.build/release/mediaplay-bench terminal --runs 3
	.build/release/mediaplay-bench subtitles --runs 3
	.build/release/mediaplay-bench search --runs 3
	.build/release/mediaplay-bench loudness --runs 3
	.build/release/mediaplay-bench page --runs 3
	.build/release/mediaplay-bench mpd --count 1000 --clients 100 --rounds 20
	.build/release/mediaplay-bench memory --count 1000
	.build/release/mediaplay-bench observers --seconds 60
	.build/release/mediaplay-bench table .build/bench-results.jsonl docs/PERFORMANCE.md

release: deps
	for program in $(PROGRAMS); do $(SWIFT) build -c release --product $$program $(SWIFTFLAGS) || exit 1; done

deps:
	@scripts/install-deps.sh

# What building and checking the Debian package takes (dpkg-dev, lintian,
# rsvg-convert, appstreamcli, man, systemd's tools).
package-deps: test-deps
	@scripts/install-deps.sh --package

# The Debian package, mediaplay_VERSION_ARCH.deb, from this checkout
# (CONFIGURATION=debug packages the debug build, as CI does).
CONFIGURATION ?= release
deb: package-deps
	SWIFTFLAGS="$(SWIFTFLAGS)" scripts/make-deb.sh --configuration $(CONFIGURATION)

# The package built and checked as a user meets it: lintian, installed with
# apt for a fresh user, socket activation, removed without a trace
# (scripts/check-deb.sh; it changes this machine's /usr, so CI runs it).
deb-check: package-deps
	scripts/check-deb.sh "$$(SWIFTFLAGS="$(SWIFTFLAGS)" scripts/make-deb.sh --configuration $(CONFIGURATION) --output .build)"

# Man pages from the commands themselves (and mediaplay-config(5) from docs/CONFIG.md).
man: build
	python3 scripts/make-man.py .build/debug/mediaplay-core .build/man

test-deps:
	@scripts/install-deps.sh --test

completions: build
	mkdir -p completions
	.build/debug/mediaplay --generate-completion-script bash > completions/mediaplay.bash
	.build/debug/mediaplay --generate-completion-script zsh > completions/_mediaplay
	.build/debug/mediaplay --generate-completion-script fish > completions/mediaplay.fish

install: release completions
	install -D -m 0755 .build/release/mediaplay $(DESTDIR)$(PREFIX)/bin/mediaplay
	install -D -m 0755 .build/release/mediaplay-core $(DESTDIR)$(PREFIX)/libexec/mediaplay/mediaplay-core
	install -D -m 0755 .build/release/mediaplay-cache $(DESTDIR)$(PREFIX)/libexec/mediaplay/mediaplay-cache
	install -D -m 0644 media.json $(DESTDIR)$(PREFIX)/share/mediaplay/media.json
	install -D -m 0644 desktop/mediaplay.desktop $(DESTDIR)$(PREFIX)/share/applications/mediaplay.desktop
	-command -v update-desktop-database >/dev/null && update-desktop-database $(DESTDIR)$(PREFIX)/share/applications
	install -d $(DESTDIR)$(PREFIX)/share/mediaplay/Media
	install -m 0644 Media/tune.opus Media/zoom.mp4 Media/mandelbrot.jpg Media/pattern.jpg $(DESTDIR)$(PREFIX)/share/mediaplay/Media/
	install -D -m 0644 completions/mediaplay.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mediaplay
	install -D -m 0644 completions/_mediaplay $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_mediaplay
	install -D -m 0644 completions/mediaplay.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/mediaplay.fish
	python3 scripts/make-man.py .build/release/mediaplay-core .build/man-release
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0644 .build/man-release/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 .build/man-release/mediaplay-config.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -D -m 0644 desktop/icons/mediaplay.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/mediaplay.svg
	install -D -m 0644 desktop/icons/mediaplay-symbolic.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/symbolic/apps/mediaplay-symbolic.svg

clean:
	rm -rf .build completions
