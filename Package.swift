// swift-tools-version: 6.1
import PackageDescription

// Swift 6 language mode everywhere; complete concurrency checking is implied by it.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

// The three programs are linked with the Swift libraries in them (static):
// they start with no symbol lookups for Swift, and map only the pages of
// Swift's libraries they use (docs/PERFORMANCE.md). lld, because the GNU
// linkers warn about a libc call inside the static Foundation.
func staticSwift(positionIndependent: Bool) -> [LinkerSetting] {
    [
        .unsafeFlags([
            "-static-stdlib", "-use-ld=lld",
            "-Xlinker", "-l_FoundationICU", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims", "-Xlinker", "-lCoreFoundation",
            "-Xlinker", "--no-export-dynamic",
        ] + (positionIndependent ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : ["-Xlinker", "--no-pie"])),
    ]
}

let package = Package(
    name: "mediaplay",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mediaplay", targets: ["mediaplay"]),
        .executable(name: "mediaplay-core", targets: ["mediaplay-core"]),
        .executable(name: "mediaplay-cache", targets: ["mediaplay-cache"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages. Each shim header wraps the
        // macros and variadic functions that Swift cannot import directly.
        // FFmpeg and SDL2 link nothing: CMediaLoader loads each on its first call.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libavfilter-dev", "libswresample-dev", "libswscale-dev"])]
        ),
        // No pkgConfig on purpose: sdl2.pc adds -D_REENTRANT, which SwiftPM rejects
        // as a prohibited flag (and -lSDL2, which CMediaLoader replaces).
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev"])]
        ),
        // No pkgConfig on purpose: its -lcurl is what CMediaLoader replaces
        // (libcurl loaded on its first call); the header is on the default path.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // Pictures as terminal graphics (kitty, sixel, or colour blocks).
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"])]
        ),

        // XML feeds (RSS, Atom, OPML) through libxml2, loaded with dlopen when
        // the first one is read; its headers only at build time.
        .target(name: "CXML", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),

        // The FFmpeg and SDL2 functions the programs call, each loading its
        // library with dlopen on its first call (scripts/make-media-loader.py).
        .target(name: "CMediaLoader"),

        // Linux-only calls glibc hides behind _GNU_SOURCE (header only).
        .systemLibrary(name: "CLinux"),
        // SQLite's variadic settings (sqlite3_db_config), beside GRDB.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),

        // sd-bus (libsystemd-dev) for MPRIS: its object tables are C macros,
        // so the MPRIS objects are declared in C here.
        .target(name: "CSDBus", linkerSettings: [.linkedLibrary("systemd")]),

        // The one state model: item key, item states, events, errors, keys,
        // and their JSON forms (docs/ARCHITECTURE.md); no terminal code.
        .target(name: "MediaModel", swiftSettings: swiftSettings),
        // The terminal: widths, escapes, raw mode, keys decoded, and the
        // model's lines as the terminal shows them (StatusText, SubtitleText).
        .target(name: "MediaTerminal", dependencies: ["MediaModel"], swiftSettings: swiftSettings),
        .target(name: "MediaFeed", dependencies: ["MediaModel", "MediaTerminal", "CXML", "CLinux"], swiftSettings: swiftSettings),
        // What the session asks of a player and a store, and the values they
        // speak (player state and events, media info, byte sources, download
        // events): no C library, so the session and its tests build without
        // FFmpeg, SDL or libcurl. The engine and the cache conform in their own modules.
        .target(name: "MediaInterfaces", dependencies: ["MediaModel"], swiftSettings: swiftSettings),
        // config.toml: defaults and keys, read with TOMLKit (docs/CONFIG.md).
        .target(name: "MediaConfig", dependencies: ["MediaModel", "MediaTerminal", .product(name: "TOMLKit", package: "TOMLKit")], swiftSettings: swiftSettings),
        // The cache folder on disk: entries, index, kept feeds and probed
        // details, read without the network (list runs without libcurl).
        .target(
            name: "MediaCacheFolder",
            dependencies: [
                "MediaModel", "MediaFeed", "MediaInterfaces", "CSQLite", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MediaCache",
            dependencies: ["MediaModel", "MediaFeed", "MediaInterfaces", "MediaCacheFolder", "CCurl", "CMediaLoader", "CLinux", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(name: "MediaEngine", dependencies: ["MediaModel", "MediaFeed", "MediaInterfaces", "MediaTerminal", "CFFmpeg", "CSDL2", "CMediaLoader", "CLinux"], swiftSettings: swiftSettings),
        // Pictures in the terminal: the screen `play` draws video and its
        // status line on (SIGWINCH), and libchafa's drawing, shared with browse.
        .target(name: "MediaTerminalVideo", dependencies: ["MediaEngine", "MediaModel", "MediaTerminal", "CFFmpeg", "CMediaLoader", "CChafa"], swiftSettings: swiftSettings),
        // What outlives a run, in the state directory's SQLite database:
        // resume positions, settings, played marks and the items seen per feed.
        .target(
            name: "MediaState",
            dependencies: ["MediaModel", "MediaCacheFolder", "CSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MediaSession",
            dependencies: ["MediaInterfaces", "MediaModel", "MediaFeed", "MediaState"],
            swiftSettings: swiftSettings
        ),
        // The real engine and cache joined for the programs that build a
        // session of their own: the player factory and its recordings, and
        // the engine's probes and loudness kept in the cache's index.
        .target(
            name: "MediaWiring",
            dependencies: ["MediaInterfaces", "MediaModel", "MediaFeed", "MediaCacheFolder", "MediaCache", "MediaEngine", "MediaSession", "MediaPages"],
            swiftSettings: swiftSettings
        ),
        // Web pages resolved through yt-dlp (a child process), as mpv does.
        .target(name: "MediaPages", dependencies: ["MediaInterfaces", "MediaModel", "MediaFeed", "MediaTerminal", "CLinux"], swiftSettings: swiftSettings),
        .target(
            name: "MediaControl",
            dependencies: ["MediaModel", "MediaFeed", "CLinux"],
            swiftSettings: swiftSettings
        ),
        // The background player on the session bus as an MPRIS player.
        .target(name: "MediaMPRIS", dependencies: ["CSDBus", "MediaModel", "MediaFeed", "MediaSession"], swiftSettings: swiftSettings),
        // The background player on MPD's protocol (TCP), over the session.
        .target(name: "MediaMPD", dependencies: ["MediaModel", "MediaFeed", "MediaSession", "CLinux"], swiftSettings: swiftSettings),
        .target(
            name: "MediaDaemon",
            dependencies: [
                "MediaModel", "MediaControl", "MediaSession", "MediaFeed", "CLinux",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `browse`: the interactive grid and detail view over a session.
        .target(
            name: "MediaBrowse",
            dependencies: [
                "CChafa", "MediaModel", "MediaTerminal", "MediaTerminalVideo", "MediaFeed", "MediaCache", "MediaEngine", "MediaSession", "MediaWiring", "MediaControl",
            ],
            swiftSettings: swiftSettings
        ),
        // `list`: the feed file, the cache folder and the rendering, shared by
        // mediaplay-core and the quick path in `mediaplay` (no FFmpeg, SDL
        // or libcurl loaded).
        .target(
            name: "MediaListing",
            dependencies: [
                "MediaModel", "MediaFeed", "MediaTerminal", "MediaCacheFolder", "MediaState", "MediaplayCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // What every command of the three programs stands on: the global
        // options, errors and exit codes, named feeds, config.toml's defaults,
        // where the background player and the helper programs are.
        .target(
            name: "MediaplayCommon",
            dependencies: [
                "MediaModel", "MediaControl", "MediaFeed", "MediaTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The background player's client commands, shared by the three programs.
        .target(
            name: "MediaplayCommandLine",
            dependencies: [
                "MediaplayCommon", "MediaModel", "MediaControl", "MediaFeed", "MediaTerminal", "MediaState",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // A feed loaded from a path or a URL (a remote one revalidated, and
        // kept in the cache for offline use), and the cache opened, for the
        // commands of mediaplay-core and mediaplay-cache (libcurl, no FFmpeg or SDL).
        // Media servers as feeds: a Subsonic server's library, a DLNA/UPnP
        // server's ContentDirectory; plays reported back (docs/FEED.md).
        .target(
            name: "MediaServers",
            dependencies: ["MediaplayCommon", "MediaListing", "MediaCache", "MediaCacheFolder", "MediaFeed", "MediaInterfaces", "MediaTerminal", "MediaModel", "CXML", "CLinux"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MediaFeedLoading",
            dependencies: ["MediaServers", "MediaplayCommon", "MediaListing", "MediaCache", "MediaCacheFolder", "MediaFeed", "MediaTerminal"],
            swiftSettings: swiftSettings
        ),
        // `fetch` and `cache`: the commands that need the cache and libcurl
        // but neither FFmpeg nor SDL, so that mediaplay-cache can run them.
        .target(
            name: "MediaCacheCommands",
            dependencies: [
                "MediaplayCommon", "MediaplayCommandLine", "MediaListing", "MediaFeedLoading", "MediaInterfaces", "MediaCache", "MediaFeed", "MediaTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // `mediaplay`: the client commands (toggle, status, stop, ...) and
        // `list` of a local feed run here without loading FFmpeg, SDL or
        // libcurl (about 180 shared libraries, 35 ms of dynamic linking);
        // `fetch` and `cache` are handed to mediaplay-cache and every other
        // command to mediaplay-core, with exec. A toggle's whole process takes
        // about 4 ms. Not position-independent: a PIE's loader rewrote every
        // pointer in the static Foundation's data at each start (200 of 520
        // page faults, about 1 ms of a toggle). The price, a fixed address
        // for this program's image, is paid only by the small client, which
        // reads no media; mediaplay-core and mediaplay-cache keep PIE.
        .executableTarget(
            name: "mediaplay",
            dependencies: ["MediaplayCommon", "MediaplayCommandLine", "MediaListing", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings,
            linkerSettings: staticSwift(positionIndependent: false)
        ),
        // `mediaplay-cache`: fetch and cache, with libcurl and SQLite but no
        // FFmpeg or SDL (whose 180 libraries cost mediaplay-core 60 ms to load
        // before a download could start).
        .executableTarget(
            name: "mediaplay-cache",
            dependencies: ["MediaCache", "MediaCacheCommands", "MediaplayCommon", "MediaplayCommandLine", "MediaConfig", "MediaPages", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings,
            linkerSettings: staticSwift(positionIndependent: true)
        ),
        // Every command of mediaplay-core, and `MediaplayProgram`: its `main`,
        // and the same commands run inside a test's process with the streams
        // and environment the test gives (CommandContext).
        .target(
            name: "MediaplayCore",
            dependencies: [
                "MediaModel", "MediaFeed", "MediaTerminal", "MediaInterfaces", "MediaCache", "MediaEngine", "MediaSession", "MediaWiring", "MediaControl", "MediaDaemon",
                "MediaMPRIS", "MediaMPD", "MediaBrowse", "MediaTerminalVideo", "MediaState", "MediaplayCommon", "MediaplayCommandLine", "MediaListing", "MediaFeedLoading", "MediaServers", "MediaCacheCommands", "MediaConfig", "MediaPages", "CLinux", "CMediaLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mediaplay-core",
            dependencies: ["MediaplayCore"],
            swiftSettings: swiftSettings,
            linkerSettings: staticSwift(positionIndependent: true)
        ),

        // The test kit: fixtures made by ffmpeg, a loopback HTTP server, the
        // one process runner, a terminal in tmux. The tests, the benchmarks
        // and the demo use it; mediaplay itself never does.
        .target(
            name: "TestKit",
            dependencies: ["MediaModel", "CLinux"],
            swiftSettings: swiftSettings
        ),
        // Stand-ins for the engine and the cache, for tests of the command
        // layer (held to the engine's contract by PlayerConformanceTests).
        .target(
            name: "SessionFakes",
            dependencies: ["MediaInterfaces", "MediaSession", "MediaModel", "MediaFeed"],
            swiftSettings: swiftSettings
        ),
        // Benchmarks (run on demand with `make bench`; figures in docs/PERFORMANCE.md).
        .executableTarget(
            name: "mediaplay-bench",
            dependencies: ["TestKit", "MediaEngine", "MediaModel", "MediaControl", "MediaFeed", "MediaBrowse"],
            path: "Benchmarks/mediaplay-bench",
            swiftSettings: swiftSettings
        ),

        // `make demo`: sample media from a loopback server, opened in browse.
        .executableTarget(
            name: "mediaplay-demo",
            dependencies: ["TestKit"],
            path: "Demo/mediaplay-demo",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "MediaModelTests", dependencies: ["MediaModel"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaFeedTests", dependencies: ["MediaFeed", "MediaModel", "MediaTerminal", "MediaPages", "MediaInterfaces", "TestKit", "CLinux"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaTerminalTests", dependencies: ["MediaModel", "MediaTerminal"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaServersTests", dependencies: ["MediaServers", "MediaCache", "MediaFeed", "MediaInterfaces", "MediaModel", "MediaplayCommon", "TestKit"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaConfigTests", dependencies: ["MediaConfig", "MediaModel"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaBrowseTests", dependencies: ["MediaModel", "MediaBrowse", "MediaTerminal", "MediaFeed", "MediaEngine"], swiftSettings: swiftSettings),
        // What the cache's tests share (MediaCacheTests, RealTimeTests' partial reads).
        .target(
            name: "CacheTestSupport", dependencies: ["MediaCache", "MediaCacheFolder", "MediaInterfaces", "MediaModel", "TestKit"], path: "Tests/CacheTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "MediaCacheTests", dependencies: ["MediaCache", "MediaInterfaces", "CacheTestSupport", "TestKit"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaModel", "MediaInterfaces", "MediaEngine", "CFFmpeg", "TestKit"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MediaSessionTests",
            dependencies: ["MediaModel", "MediaSession", "MediaState", "MediaFeed", "SessionFakes", "TestKit"],
            swiftSettings: swiftSettings
        ),
        // The session with the real engine and cache: the fakes held to the
        // engine's contract, a chapters file fetched with libcurl, the state
        // and cache files kept private.
        .testTarget(
            name: "MediaWiringTests",
            dependencies: [
                "MediaInterfaces", "MediaModel", "MediaSession", "MediaState", "MediaFeed", "MediaEngine", "MediaCache", "MediaWiring", "SessionFakes", "TestKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediaControlTests",
            dependencies: [
                "MediaModel", "MediaControl", "MediaDaemon", "MediaSession", "MediaFeed", "MediaEngine", "MediaWiring", "SessionFakes", "CLinux", "TestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediaMPDTests",
            dependencies: ["MediaModel", "MediaMPD", "MediaSession", "MediaFeed", "MediaEngine", "MediaWiring", "SessionFakes", "TestKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CModulesTests", dependencies: ["CFFmpeg", "CSDL2", "CMediaLoader", "CCurl"], swiftSettings: swiftSettings),
        // The end-to-end tests run the three programs, which `make test` builds
        // first (a test target cannot depend on statically linked programs).
        // `runInProcess`: a command run in the test's own process, its
        // streams captured, its environment its own (CommandContext).
        .target(name: "InProcessRunner", dependencies: ["MediaplayCore", "MediaModel", "TestKit"], path: "Tests/InProcessRunner", swiftSettings: swiftSettings),
        .testTarget(name: "EndToEndTests", dependencies: ["MediaModel", "MediaplayCommandLine", "MediaFeed", "MediaControl", "TestKit", "InProcessRunner"], swiftSettings: swiftSettings),
        // The end-to-end tests that play to a device in real time (positions
        // against the wall clock, every sample on time): `make test` runs
        // them alone, one at a time, after everything else.
        // So are the session's window-close and progressive-playback tests and
        // the cache's partial reads (held and throttled responses, whose
        // ranged transfers depend on how fast the main one goes).
        .testTarget(
            name: "RealTimeTests",
            dependencies: [
                "MediaplayCommandLine", "MediaModel", "MediaFeed", "MediaInterfaces", "MediaEngine", "MediaCache", "MediaCacheFolder", "MediaState", "MediaSession", "SessionFakes",
                "CacheTestSupport", "TestKit",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
