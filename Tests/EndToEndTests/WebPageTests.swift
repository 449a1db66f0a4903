import Foundation
import Testing
import TestKit

/// Web pages and adaptive streams (issue 46), against the real yt-dlp
/// (Debian's, whose generic extractor finds `<video>` sources, HLS and
/// DASH in a page) and pages of our own on loopback: a page plays as mpv
/// plays it, downloaded once; DASH and HLS play as ffmpeg decodes them;
/// nothing local is read because of a page.
@Suite(.serialized) struct WebPageTests {
    static func page(title: String, body: String) -> [UInt8] {
        Array("<!doctype html>\n<html><head><title>\(title)</title></head>\n<body>\(body)</body></html>\n".utf8)
    }

    static func errorLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("mediaplay:") }
    }

    /// A DASH stream of the clip (video and audio in adaptation sets of
    /// their own) and an HLS one, made by ffmpeg's muxers into a folder,
    /// every file served under /dash/ and /hls/.
    static func adaptiveStreams(serving server: TestHTTPServer, in folder: TemporaryDirectory) async throws -> (dash: String, hls: String) {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        for kind in ["dash", "hls"] { try FileManager.default.createDirectory(atPath: folder.path + "/" + kind, withIntermediateDirectories: true) }
        let dash = folder.path + "/dash/manifest.mpd"
        let hls = folder.path + "/hls/index.m3u8"
        let made = [
            try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", clip, "-map", "0:v", "-map", "0:a", "-c", "copy", "-f", "dash", "-adaptation_sets", "id=0,streams=v id=1,streams=a", dash]),
            try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", clip, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod", hls]),
        ]
        for result in made { #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))") }
        for kind in ["dash", "hls"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/" + kind) {
                let type = name.hasSuffix(".mpd") ? "application/dash+xml" : name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp4"
                server.serve("/\(kind)/\(name)", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/\(kind)/\(name)"))), contentType: type)
            }
        }
        return (dash, hls)
    }

    /// `play PAGE` of a page with `<video><source src=clip.mp4>`: the clip's
    /// sound exactly as ffmpeg decodes it, the page's title said; played
    /// again, nothing is asked of the server (the resolution and the clip
    /// are kept), and `cache list` names the clip by the page's title.
    @Test func aPagePlaysItsMediaDownloadedOnce() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let server = try TestHTTPServer()
        server.serve("/clip.mp4", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), contentType: "video/mp4")
        server.serve("/page.html", bytes: Self.page(title: "Harbour at dawn", body: #"<video controls><source src="clip.mp4" type="video/mp4"></video>"#), contentType: "text/html; charset=utf-8")
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.wav"
        let arguments = ["play", server.url("/page.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", out, "--untimed"]
        let first = try await Mediaplay.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("Harbour at dawn"), "the page's title is said: \(first.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(clip)), "the clip's sound, as ffmpeg decodes it")
        let asked = (page: server.getCount("/page.html"), clip: server.getCount("/clip.mp4"))
        #expect(asked.clip >= 1)
        // The headers yt-dlp asks for (its browser's User-Agent, the page as Referer) go with the media's request.
        let sent = server.requests("/clip.mp4").first?.headers ?? [:]
        #expect(sent["referer"] == server.url("/page.html").absoluteString && sent["user-agent"]?.hasPrefix("Mozilla/") == true, "\(sent)")

        try FileManager.default.removeItem(atPath: out)
        let second = try await Mediaplay.run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("Harbour at dawn"), "\(second.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(clip)))
        #expect(server.getCount("/page.html") == asked.page && server.getCount("/clip.mp4") == asked.clip, "played again, nothing is downloaded")

        let list = try await Mediaplay.run(["cache", "list", "--cache-dir", folder.path + "/cache"])
        #expect(list.status == 0 && list.stdout.contains("Harbour at dawn"), "\(list.stdout)\(list.stderr)")
    }

    /// ffmpeg's decoding of a stream's sound and pictures in one run, as
    /// the player reads them: together (libavformat's DASH reader ends with
    /// the track that ends first, so apart the sound would run longer).
    static func ffmpegDecoding(_ url: String, in folder: TemporaryDirectory) async throws -> (pcm: [UInt8], hashes: [String]) {
        let pcm = folder.path + "/reference.raw"
        let frames = folder.path + "/reference.framemd5"
        let result = try await Fixtures.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y", "-i", url, "-map", "0:a:0", "-f", "s16le", pcm, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", frames,
        ])
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        let hashes = try String(contentsOfFile: frames, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: pcm))), hashes)
    }

    /// A feed item whose URL is a page: `fetch` downloads the page's media
    /// once, `list` names it by the page's title and calls it cached, and
    /// playing it then asks the server nothing.
    @Test func aFeedsPageItemIsFetchedListedAndPlayed() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let server = try TestHTTPServer()
        server.serve("/clip.mp4", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), contentType: "video/mp4")
        server.serve("/talk.html", bytes: Self.page(title: "Evening talk", body: #"<video src="clip.mp4"></video>"#), contentType: "text/html")
        let folder = try TemporaryDirectory()
        let feed = try folder.write("feed.json", #"[{"type": "video", "url": "\#(server.url("/talk.html").absoluteString)"}]"#)
        let options = ["--feed", feed, "--cache-dir", folder.path + "/cache"]
        let fetched = try await Mediaplay.run(["fetch", "1"] + options)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let list = try await Mediaplay.run(["list"] + options)
        #expect(list.stdout.contains("Evening talk") && list.stdout.contains("cached"), "\(list.stdout)\(list.stderr)")
        let asked = (page: server.getCount("/talk.html"), clip: server.getCount("/clip.mp4"))
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.run(["play", "1", "--no-video", "--audio-out", out, "--untimed"] + options)
        #expect(played.status == 0 && played.stderr.contains("Evening talk"), "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(clip)))
        #expect(server.getCount("/talk.html") == asked.page && server.getCount("/clip.mp4") == asked.clip, "nothing downloaded again")
    }

    /// A kept resolution is used until its media's address fails (they
    /// expire): then the page is resolved again, and what it names now plays.
    @Test func aResolutionWhoseMediaFailsIsMadeAgain() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        let server = try TestHTTPServer()
        server.serve("/old/clip.mp4", bytes: bytes, contentType: "video/mp4")
        server.serve("/page.html", bytes: Self.page(title: "Moving clip", body: #"<video src="old/clip.mp4"></video>"#), contentType: "text/html")
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.wav"
        let arguments = ["play", server.url("/page.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", out, "--untimed"]
        let first = try await Mediaplay.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        // The cached copy goes, the old address expires, the page names a new one.
        let cleared = try await Mediaplay.run(["cache", "clear", "--cache-dir", folder.path + "/cache"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        server.inject("/old/clip.mp4", [.status(403), .status(403), .status(403), .status(403), .status(403)])
        server.serve("/new/clip.mp4", bytes: bytes, contentType: "video/mp4")
        server.serve("/page.html", bytes: Self.page(title: "Moving clip", body: #"<video src="new/clip.mp4"></video>"#), contentType: "text/html")
        let second = try await Mediaplay.run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(server.getCount("/new/clip.mp4") >= 1, "resolved again: \(second.stderr)")
        #expect(try await Fixtures.referencePCM(out) == (try await Fixtures.referencePCM(clip)))
    }

    /// A DASH manifest's URL, and a page embedding it: the video and the
    /// audio (adaptation sets of their own) play together, frames and
    /// samples as ffmpeg decodes the manifest.
    @Test(arguments: [false, true])
    func dashPlaysBothTracksAsFFmpegDecodesIt(_ throughPage: Bool) async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        _ = try await Self.adaptiveStreams(serving: server, in: folder)
        server.serve("/dash.html", bytes: Self.page(title: "Dash page", body: #"<video src="dash/manifest.mpd"></video>"#), contentType: "text/html")
        let target = server.url(throughPage ? "/dash.html" : "/dash/manifest.mpd").absoluteString
        let audio = folder.path + "/out.wav"
        let video = folder.path + "/frames.txt"
        let played = try await Mediaplay.run(["play", target, "--cache-dir", folder.path + "/cache", "--audio-out", audio, "--video-out", video, "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        let reference = try await Self.ffmpegDecoding(server.url("/dash/manifest.mpd").absoluteString, in: folder)
        #expect(!reference.hashes.isEmpty && !reference.pcm.isEmpty)
        #expect(try await Fixtures.referencePCM(audio) == reference.pcm, "the audio track, as ffmpeg decodes it")
        #expect(try Recorded.hashes(video) == reference.hashes, "the video track's frames, as ffmpeg decodes them")
        guard !throughPage else { return }
        // The sound alone plays to its own end, as `ffmpeg -map 0:a:0` decodes it.
        let alone = try await Mediaplay.run(["play", target, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", audio, "--untimed"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let sound = try await Fixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", target, "-map", "0:a:0", "-f", "s16le", "-"])
        #expect(try await Fixtures.referencePCM(audio) == sound.stdout)
    }

    /// A page whose best video and best audio are two files (a DASH
    /// manifest of two plain files, which yt-dlp gives as two http formats,
    /// as sites give bestvideo+bestaudio): both play as one item, the
    /// frames as ffmpeg decodes the video file, the samples as it decodes
    /// the audio file; each downloaded once.
    @Test func videoAndAudioApartPlayTogether() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let video = try await Fixtures.make("clip-video-only.mp4", ["-i", clip, "-map", "0:v", "-c", "copy"])
        let audio = try await Fixtures.make("clip-audio-only.m4a", ["-i", clip, "-map", "0:a", "-c", "copy"])
        let server = try TestHTTPServer()
        server.serve("/v.mp4", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: video))), contentType: "video/mp4")
        server.serve("/a.m4a", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: audio))), contentType: "audio/mp4")
        let manifest = """
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT2S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
             <Period>
              <AdaptationSet mimeType="video/mp4" contentType="video">
               <Representation id="v" bandwidth="200000" codecs="avc1.64000d" width="320" height="240"><BaseURL>v.mp4</BaseURL></Representation>
              </AdaptationSet>
              <AdaptationSet mimeType="audio/mp4" contentType="audio">
               <Representation id="a" bandwidth="64000" codecs="mp4a.40.2" audioSamplingRate="44100"><BaseURL>a.m4a</BaseURL></Representation>
              </AdaptationSet>
             </Period>
            </MPD>
            """
        server.serve("/pair.mpd", bytes: Array(manifest.utf8), contentType: "application/dash+xml")
        server.serve("/pair.html", bytes: Self.page(title: "Apart", body: #"<video src="pair.mpd"></video>"#), contentType: "text/html")
        let folder = try TemporaryDirectory()
        let sound = folder.path + "/out.wav"
        let frames = folder.path + "/frames.txt"
        let arguments = ["play", server.url("/pair.html").absoluteString, "--cache-dir", folder.path + "/cache", "--audio-out", sound, "--video-out", frames, "--untimed"]
        let played = try await Mediaplay.run(arguments)
        #expect(played.status == 0 && played.stderr.contains("Apart"), "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(sound) == (try await Fixtures.referencePCM(audio)), "the audio file's samples")
        #expect(try Recorded.hashes(frames) == (try await Fixtures.referenceFrameHashes(video)), "the video file's frames")
        let asked = (video: server.getCount("/v.mp4"), audio: server.getCount("/a.m4a"))
        #expect(asked.video >= 1 && asked.audio >= 1)
        let again = try await Mediaplay.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(server.getCount("/v.mp4") == asked.video && server.getCount("/a.m4a") == asked.audio, "both cached")
    }

    /// A page's subtitle track (`<track src=subs.vtt>`, which yt-dlp
    /// lists) goes into the subtitle machinery: drawn into the pictures as
    /// ffmpeg's subtitles filter draws the file.
    @Test func aPagesSubtitlesAreDrawn() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        let subtitles = try folder.write("subs.vtt", "WEBVTT\n\n00:00.000 --> 00:01.200\nHello from the page\n")
        let server = try TestHTTPServer()
        server.serve("/clip.mp4", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip))), contentType: "video/mp4")
        server.serve("/subs.vtt", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: subtitles))), contentType: "text/vtt")
        let body = #"<video><source src="clip.mp4" type="video/mp4"><track kind="subtitles" src="subs.vtt" srclang="en" label="English"></video>"#
        server.serve("/subbed.html", bytes: Self.page(title: "Subbed", body: body), contentType: "text/html")
        let frames = folder.path + "/frames.txt"
        let played = try await Mediaplay.run([
            "play", server.url("/subbed.html").absoluteString, "--cache-dir", folder.path + "/cache", "--audio-out", folder.path + "/out.wav", "--video-out", frames, "--untimed",
        ])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(server.getCount("/subs.vtt") == 1)
        #expect(try Recorded.hashes(frames) == (try await Fixtures.referenceFrameHashes(clip, filters: "subtitles=\(subtitles)")))
    }

    /// A master HLS playlist of two variants (160×120 at 100 kb/s, 320×240
    /// at 400 kb/s): the highest bandwidth plays, or the best within
    /// `[playback] max-height`; its frames as ffmpeg decodes that variant.
    @Test(arguments: [nil, 150] as [Int?])
    func aMasterPlaylistPlaysTheVariantTheCapsAllow(_ maximumHeight: Int?) async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/var", withIntermediateDirectories: true)
        let made = try await Fixtures.run("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-y", "-i", clip, "-filter_complex", "[0:v]split=2[low][high0];[high0]scale=320:240[high]",
            "-map", "[low]", "-map", "[high]", "-map", "0:a", "-map", "0:a", "-c:v", "libx264", "-preset", "veryfast", "-b:v:0", "100k", "-b:v:1", "400k",
            "-c:a", "aac", "-f", "hls", "-var_stream_map", "v:0,a:0 v:1,a:1", "-master_pl_name", "master.m3u8", "-hls_time", "1", "-hls_playlist_type", "vod",
            folder.path + "/var/out_%v.m3u8",
        ])
        #expect(made.status == 0, "\(String(decoding: made.stderr, as: UTF8.self))")
        let server = try TestHTTPServer()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/var") {
            let type = name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t"
            server.serve("/var/\(name)", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/var/\(name)"))), contentType: type)
        }
        try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
        try (maximumHeight.map { "[playback]\nmax-height = \($0)\n" } ?? "").write(toFile: folder.path + "/config/mediaplay/config.toml", atomically: true, encoding: .utf8)
        let frames = folder.path + "/frames.txt"
        let played = try await Mediaplay.run(
            ["play", server.url("/var/master.m3u8").absoluteString, "--cache-dir", folder.path + "/cache", "--no-audio", "--video-out", frames, "--untimed"],
            environment: ["XDG_CONFIG_HOME": folder.path + "/config"]
        )
        #expect(played.status == 0, "\(played.stderr)")
        let variant = folder.path + (maximumHeight == nil ? "/var/out_1.m3u8" : "/var/out_0.m3u8")
        #expect(try Recorded.hashes(frames) == (try await Fixtures.referenceFrameHashes(variant)))
    }

    /// A page embedding an HLS stream plays it, as ffmpeg decodes the playlist.
    @Test func aPageEmbeddingHLSPlays() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let (_, hls) = try await Self.adaptiveStreams(serving: server, in: folder)
        server.serve("/hls.html", bytes: Self.page(title: "Live harbour", body: #"<video><source src="hls/index.m3u8" type="application/x-mpegURL"></video>"#), contentType: "text/html")
        let audio = folder.path + "/out.wav"
        let played = try await Mediaplay.run(["play", server.url("/hls.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", audio, "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try await Fixtures.referencePCM(audio) == (try await Fixtures.referencePCM(hls)))
    }

    /// A kept resolution whose manifest no longer answers (the addresses
    /// sites give expire) is made again, once, as a file's is.
    @Test func aKeptManifestThatFailsIsResolvedAgain() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let (_, hls) = try await Self.adaptiveStreams(serving: server, in: folder)
        server.serve("/hls.html", bytes: Self.page(title: "Moving stream", body: #"<video><source src="hls/index.m3u8" type="application/x-mpegURL"></video>"#), contentType: "text/html")
        let audio = folder.path + "/out.wav"
        let arguments = ["play", server.url("/hls.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", audio, "--untimed"]
        let first = try await Mediaplay.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        // The old manifest's address expires; the page names a new one.
        server.inject("/hls/index.m3u8", Array(repeating: .status(403), count: 20))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/hls") {
            let type = name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t"
            server.serve("/hls2/\(name)", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path + "/hls/\(name)"))), contentType: type)
        }
        server.serve("/hls.html", bytes: Self.page(title: "Moving stream", body: #"<video><source src="hls2/index.m3u8" type="application/x-mpegURL"></video>"#), contentType: "text/html")
        let second = try await Mediaplay.run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(server.getCount("/hls2/index.m3u8") >= 1, "resolved again: \(second.stderr)")
        #expect(try await Fixtures.referencePCM(audio) == (try await Fixtures.referencePCM(hls)))
    }

    /// A page naming a local file: refused in one line, nothing of the file played.
    @Test func aPageNamingALocalFilePlaysNothingLocal() async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let server = try TestHTTPServer()
        server.serve("/local.html", bytes: Self.page(title: "Local", body: #"<video><source src="file://\#(clip)" type="video/mp4"></video>"#), contentType: "text/html")
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.run(["play", server.url("/local.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", out, "--untimed"])
        #expect(played.status != 0, "\(played.stderr)")
        #expect(Self.errorLines(played.stderr).count == 1, "\(played.stderr)")
        #expect(!played.stderr.contains("FFmpeg can read"), "\(played.stderr)")
        let written = (try? Data(contentsOf: URL(fileURLWithPath: out)))?.count ?? 0
        #expect(written <= 44, "nothing local was played: \(written) bytes")
    }

    /// yt-dlp's answer itself naming a local file, a path or another
    /// scheme (a `ytdl-path` script prints it, as a hostile extractor
    /// would): refused in one line that says why, exit 65, nothing played.
    @Test(arguments: ["file://CLIP", "CLIP", "ftp://127.0.0.1/clip.mp4"])
    func anAnswerNamingSomethingLocalIsRefused(_ named: String) async throws {
        let clip = try await Fixtures.make(Fixtures.clip.name, Fixtures.clip.arguments)
        let target = named.replacingOccurrences(of: "CLIP", with: clip)
        let server = try TestHTTPServer()
        server.serve("/page.html", bytes: Self.page(title: "Page", body: "<p>nothing</p>"), contentType: "text/html")
        let folder = try TemporaryDirectory()
        let script = folder.path + "/yt-dlp"
        try await Fixtures.executable(script, contents: Array("#!/bin/sh\ncat <<'EOF'\n{\"title\": \"Local\", \"url\": \"\(target)\", \"protocol\": \"https\", \"ext\": \"mp4\"}\nEOF\n".utf8))
        try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
        try "[playback]\nytdl-path = \"\(script)\"\n".write(toFile: folder.path + "/config/mediaplay/config.toml", atomically: true, encoding: .utf8)
        let out = folder.path + "/out.wav"
        let played = try await Mediaplay.run(
            ["play", server.url("/page.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", out, "--untimed"],
            environment: ["XDG_CONFIG_HOME": folder.path + "/config"]
        )
        #expect(played.status == 65, "\(played.stderr)")
        let lines = Self.errorLines(played.stderr)
        #expect(lines.count == 1 && lines[0].contains("names \(target), which is not an http or https URL; mediaplay plays nothing local or of another kind from a page"), "\(played.stderr)")
        let written = (try? Data(contentsOf: URL(fileURLWithPath: out)))?.count ?? 0
        #expect(written <= 44, "nothing local was played: \(written) bytes")
    }

    /// `play URL.m3u8` of a plain M3U playlist (no #EXT-X- tags, as radio
    /// lists are often named) lists its entries again, by what it holds,
    /// not its name; an HLS playlist of the same name is the stream.
    @Test func aRemotePlainM3U8ListsItsEntries() async throws {
        let toneFixture = Fixtures.audioCodecs.first { $0.name == "tone.mp3" }!
        let tone = try await Fixtures.make(toneFixture.name, toneFixture.arguments)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tone)))
        let server = try TestHTTPServer()
        server.serve("/one.mp3", bytes: bytes, contentType: "audio/mpeg")
        server.serve("/two.mp3", bytes: bytes, contentType: "audio/mpeg")
        let list = "#EXTM3U\n#EXTINF:1,One\n\(server.url("/one.mp3").absoluteString)\n#EXTINF:1,Two\ntwo.mp3\n"
        server.serve("/stations.m3u8", bytes: Array(list.utf8), contentType: "audio/x-mpegurl")
        let folder = try TemporaryDirectory()
        let played = try await Mediaplay.run(["play", server.url("/stations.m3u8").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--audio-out", folder.path + "/out.wav", "--untimed"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(server.getCount("/one.mp3") >= 1 && server.getCount("/two.mp3") >= 1, "both entries played: \(played.stderr)")
    }

    /// Without yt-dlp (ytdl-path names no program): one line, exit 69.
    @Test func withoutYTDLOneLineAndExit69() async throws {
        let server = try TestHTTPServer()
        server.serve("/page.html", bytes: Self.page(title: "Page", body: #"<video src="clip.mp4"></video>"#), contentType: "text/html")
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/config/mediaplay", withIntermediateDirectories: true)
        try "[playback]\nytdl-path = \"\(folder.path)/no-such-yt-dlp\"\n".write(toFile: folder.path + "/config/mediaplay/config.toml", atomically: true, encoding: .utf8)
        let played = try await Mediaplay.run(
            ["play", server.url("/page.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--no-audio", "--untimed"],
            environment: ["XDG_CONFIG_HOME": folder.path + "/config"]
        )
        #expect(played.status == 69, "\(played.stderr)")
        let lines = Self.errorLines(played.stderr)
        #expect(lines.count == 1 && lines[0].hasSuffix("this is a web page; install yt-dlp to play it (apt install yt-dlp, or pip install yt-dlp)"), "\(played.stderr)")
        // Turned off, a page is no media file: said so, exit 65, nothing asked of yt-dlp.
        let off = try await Mediaplay.run(["play", server.url("/page.html").absoluteString, "--cache-dir", folder.path + "/cache", "--no-video", "--no-audio", "--untimed", "--no-ytdl"])
        #expect(off.status == 65 && Self.errorLines(off.stderr).count == 1 && off.stderr.contains("web pages are off"), "\(off.stderr)")
    }
}
