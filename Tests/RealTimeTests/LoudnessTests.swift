import Foundation
import Testing
import TestKit

/// Equal loudness: ReplayGain tags applied as ffmpeg's volume filter applies
/// them, loudness measured as ffmpeg's ebur128 measures it, normalisation to
/// -18 LUFS checked by measuring the recording, and the user's own filters
/// against `ffmpeg -af`.
@Suite struct LoudnessTests {
    /// A 3-second stereo tone (two frequencies, 0.4 of full scale) in the
    /// format `codec` gives, with these tags.
    static func tagged(_ name: String, codec: [String], tags: [String: String]) async throws -> String {
        try await Fixtures.make(name, [
            "-f", "lavfi", "-i", "aevalsrc=sin(330*2*PI*t)*0.4|sin(440*2*PI*t)*0.4:s=44100:d=3",
        ] + codec + tags.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] })
    }

    static let rgTags = ["REPLAYGAIN_TRACK_GAIN": "-6.50 dB", "REPLAYGAIN_TRACK_PEAK": "0.400000", "REPLAYGAIN_ALBUM_GAIN": "-3.25 dB", "REPLAYGAIN_ALBUM_PEAK": "0.450000"]

    /// `play FILE --audio-out` with these options, as s16 bytes.
    static func recorded(_ file: String, _ options: [String], environment: [String: String] = [:]) async throws -> [UInt8] {
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.wav"
        let result = try await Mediaplay.run(["play", file, "--audio-out", out, "--untimed"] + options, environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return try await Fixtures.referencePCM(out)
    }

    /// Integrated loudness of a file as ffmpeg's ebur128 summary gives it.
    static func ebur128(_ file: String) async throws -> (integrated: Double, range: Double, peak: Double) {
        let output = try await Fixtures.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-i", file, "-af", "ebur128=peak=true", "-f", "null", "-"])
        let text = String(decoding: output.stderr, as: UTF8.self)
        func value(_ label: String) -> Double {
            let line = text.split(separator: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) } ?? ""
            return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
        }
        return (value("I:"), value("LRA:"), value("Peak:"))
    }

    @Test func replayGainTrackEqualsFfmpegsVolumeFilter() async throws {
        for (name, codec) in [("rg.mp3", ["-c:a", "libmp3lame", "-b:a", "192k"]), ("rg.flac", ["-c:a", "flac"])] {
            let file = try await Self.tagged(name, codec: codec, tags: Self.rgTags)
            let ours = try await Self.recorded(file, ["--replaygain", "track"])
            let theirs = try await Fixtures.referencePCM(file, filters: "volume=replaygain=track")
            #expect(ours.count == theirs.count && Recorded.largestDifference(ours, theirs) <= 1, "\(name): track gain as ffmpeg applies it")
            let album = try await Self.recorded(file, ["--replaygain", "album"])
            #expect(Recorded.largestDifference(album, try await Fixtures.referencePCM(file, filters: "volume=replaygain=album")) <= 1, "\(name): album gain")
            // A recording without the option stays ffmpeg's plain decoding.
            #expect(try await Self.recorded(file, []) == (try await Fixtures.referencePCM(file)), "\(name): no gain unless asked")
            #expect(try await Self.recorded(file, ["--replaygain", "off"]) == (try await Fixtures.referencePCM(file)), "\(name): --replaygain off")
        }
    }

    /// Vorbis and MP4 keep their tags where ffmpeg's own replaygain reading
    /// loses them (the side data rides on a packet that gives no frame):
    /// checked against the gain the tag says, through the same volume filter.
    @Test func vorbisAndMP4TagsApplyAsTheySay() async throws {
        let vorbis = try await Self.tagged("rg.ogg", codec: ["-c:a", "libvorbis"], tags: Self.rgTags)
        let m4a = try await Self.tagged("rg.m4a", codec: ["-c:a", "aac", "-movflags", "use_metadata_tags"], tags: Self.rgTags)
        for file in [vorbis, m4a] {
            let ours = try await Self.recorded(file, ["--replaygain", "track"])
            let theirs = try await Fixtures.referencePCM(file, filters: "volume=-6.5dB")
            #expect(ours.count == theirs.count && Recorded.largestDifference(ours, theirs) <= 1, "\(file)")
        }
    }

    /// Opus: the header's output gain is the decoder's, applied once; the
    /// R128 tag is Q7.8 dB relative to -23 LUFS, 5 dB more to ReplayGain's
    /// -18 (here -2816/256 = -11 dB, so -6 dB).
    @Test func opusHeaderGainOnceAndR128Tags() async throws {
        let plain = try await Self.tagged("r128.opus", codec: ["-c:a", "libopus", "-b:a", "96k"], tags: ["R128_TRACK_GAIN": "-2816"])
        let folder = try TemporaryDirectory()
        // -3 dB in the header (Q7.8: -768).
        let withHeader = folder.path + "/header.opus"
        try Data(Self.settingOpusHeaderGain(try Data(contentsOf: URL(fileURLWithPath: plain)), to: -768)).write(to: URL(fileURLWithPath: withHeader))
        for file in [plain, withHeader] {
            let ours = try await Self.recorded(file, ["--replaygain", "track"])
            // ffmpeg's decoder applies the header's gain as ours does; the tag's -6 dB on top.
            let theirs = try await Fixtures.referencePCM(file, filters: "volume=-6dB")
            #expect(ours.count == theirs.count && Recorded.largestDifference(ours, theirs) <= 1, "\(file)")
        }
        let headerOnly = try await Self.recorded(withHeader, [])
        let louder = try await Self.recorded(plain, [])
        #expect(headerOnly != louder, "the header's gain is applied")
        #expect(headerOnly == (try await Fixtures.referencePCM(withHeader)), "once, by the decoder, as ffmpeg does")
    }

    /// An Ogg Opus file with its OpusHead's output gain set, the first
    /// page's CRC made again.
    static func settingOpusHeaderGain(_ data: Data, to gain: Int16) -> [UInt8] {
        var bytes = [UInt8](data)
        let head = Array("OpusHead".utf8)
        guard let at = (0..<bytes.count - 8).first(where: { Array(bytes[$0..<$0 + 8]) == head }) else { return bytes }
        let value = UInt16(bitPattern: gain)
        bytes[at + 16] = UInt8(value & 0xFF)
        bytes[at + 17] = UInt8(value >> 8)
        // The first page: 27 header bytes, the segment table, the segments.
        let segments = Int(bytes[26])
        let length = 27 + segments + bytes[27..<27 + segments].reduce(0) { $0 + Int($1) }
        for index in 22..<26 { bytes[index] = 0 }
        var crc: UInt32 = 0
        for byte in bytes[0..<length] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for index in 0..<4 { bytes[22 + index] = UInt8((crc >> (8 * UInt32(index))) & 0xFF) }
        return bytes
    }

    /// A gain the peak forbids: +6 dB asked, 1/0.8 (1.94 dB) given, as
    /// ffmpeg's replaygain_noclip gives it; --no-replaygain-clip gives it all.
    @Test func clippingPreventionCapsTheGain() async throws {
        let file = try await Self.tagged("rg-loud.mp3", codec: ["-c:a", "libmp3lame", "-b:a", "192k"], tags: ["REPLAYGAIN_TRACK_GAIN": "+6.00 dB", "REPLAYGAIN_TRACK_PEAK": "0.800000"])
        let ours = try await Self.recorded(file, ["--replaygain", "track"])
        #expect(Recorded.largestDifference(ours, try await Fixtures.referencePCM(file, filters: "volume=replaygain=track")) <= 1)
        #expect(Recorded.largestDifference(ours, try await Fixtures.referencePCM(file, filters: "volume=1.25")) <= 1, "1 / peak")
        let unclipped = try await Self.recorded(file, ["--replaygain", "track", "--no-replaygain-clip"])
        #expect(Recorded.largestDifference(unclipped, try await Fixtures.referencePCM(file, filters: "volume=6dB")) <= 1)
    }

    /// Two items with the same gain, played in turn: the second's first
    /// sample follows the first's last, as ffmpeg's two decodings joined.
    @Test func autoplayJoinsItemsWithTheSameGain() async throws {
        let folder = try TemporaryDirectory()
        let one = try await Self.tagged("rg-a.flac", codec: ["-c:a", "flac"], tags: Self.rgTags)
        let two = try await Fixtures.make("rg-b.flac", [
            "-f", "lavfi", "-i", "aevalsrc=sin(550*2*PI*t)*0.4|sin(660*2*PI*t)*0.4:s=44100:d=2", "-c:a", "flac",
        ] + Self.rgTags.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] })
        try FileManager.default.createDirectory(atPath: folder.path + "/album", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: one, toPath: folder.path + "/album/1.flac")
        try FileManager.default.copyItem(atPath: two, toPath: folder.path + "/album/2.flac")
        let ours = try await Self.recorded(folder.path + "/album", ["--replaygain", "album"])
        let theirs = try await Fixtures.referencePCM(one, filters: "volume=-3.25dB") + (try await Fixtures.referencePCM(two, filters: "volume=-3.25dB"))
        #expect(ours.count == theirs.count, "\(ours.count) bytes, ffmpeg \(theirs.count)")
        #expect(Recorded.largestDifference(ours, theirs) <= 1)
    }

    /// A fetched item is measured in the background; list --json shows it,
    /// within 0.1 LU of ffmpeg's ebur128.
    @Test func aCachedItemIsMeasuredInTheBackground() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryDirectory()
        let file = try await Fixtures.make("loudness-talk.flac", [
            "-f", "lavfi", "-i", "aevalsrc=sin(220*2*PI*t)*0.3*(1+0.5*sin(2*PI*0.5*t))|sin(330*2*PI*t)*0.2:s=48000:d=6", "-c:a", "flac",
        ])
        server.serve("/talk.flac", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
        let feed = try folder.write("feed.json", #"[{"type": "audio", "title": "Talk", "url": "\#(server.url("/talk.flac").absoluteString)"}]"#)
        let arguments = ["--feed", feed, "--cache-dir", folder.path + "/cache"]
        let measuring = ["MEDIAPLAY_MEASURE_LOUDNESS": "1"]
        let fetched = try await Mediaplay.run(["fetch", "1"] + arguments, environment: measuring)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        // fetch started the measurement (`mediaplay-core measure
        // --background`, detached): its end is when the index has it.
        let measurers = ProcessTable.pids { $0.contains("measure") && $0.contains { $0.hasPrefix(folder.path + "/cache") } }
        for measurer in measurers {
            _ = try await Wait.forExit(of: measurer, timeout: 20)
        }
        let list = try await Mediaplay.run(["list", "--json"] + arguments)
        let document = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let media = (document?["items"] as? [[String: Any]])?.first?["media"] as? [String: Any]
        let loudness = media?["loudness"] as? [String: Any]
        let reference = try await Self.ebur128(file)
        let integrated = try #require(loudness?["integrated"] as? Double, "measured within 20 s")
        #expect(abs(integrated - reference.integrated) <= 0.1, "\(integrated) LUFS, ffmpeg \(reference.integrated)")
        #expect(abs((loudness?["range"] as? Double ?? .nan) - reference.range) <= 0.1)
        #expect(abs((loudness?["truePeak"] as? Double ?? .nan) - reference.peak) <= 0.1)
    }

    /// An untagged loud file and a quiet one, measured, both play at
    /// -18 LUFS (± 0.5), measured on the recording.
    @Test func measuredFilesPlayAtTheTarget() async throws {
        let folder = try TemporaryDirectory()
        let cache = ["--cache-dir", folder.path + "/cache"]
        for (name, level) in [("loud", 0.7), ("quiet", 0.03)] {
            let file = try await Fixtures.make("loudness-\(name).flac", [
                "-f", "lavfi", "-i", "aevalsrc=sin(440*2*PI*t)*\(level)*(0.6+0.4*sin(2*PI*t))|sin(550*2*PI*t)*\(level)*0.8:s=44100:d=5", "-c:a", "flac",
            ])
            let measured = try await Mediaplay.run(["measure", file] + cache)
            #expect(measured.status == 0 && measured.stdout.contains("LUFS"), "\(measured.stdout)\(measured.stderr)")
            let out = folder.path + "/\(name).wav"
            let played = try await Mediaplay.run(["play", file, "--audio-out", out, "--untimed", "--loudness", "on"] + cache)
            #expect(played.status == 0, "\(played.stderr)")
            let heard = try await Self.ebur128(out).integrated
            #expect(abs(heard - -18) <= 0.5, "\(name): \(heard) LUFS")
            // Measured once: a second measure finds nothing to do.
            #expect(try await Mediaplay.run(["measure", file] + cache).stdout.hasPrefix("nothing to measure"))
        }
    }

    @Test func audioFiltersEqualFfmpegs() async throws {
        let file = try await Self.tagged("af.flac", codec: ["-c:a", "flac"], tags: [:])
        let chain = "equalizer=f=1000:t=q:w=1:g=-6,extrastereo=m=1.5"
        let ours = try await Self.recorded(file, ["--af", chain])
        let theirs = try await Fixtures.referencePCM(file, filters: chain)
        #expect(ours.count == theirs.count && Recorded.largestDifference(ours, theirs) <= 1)
        let typo = try await Mediaplay.run(["play", file, "--af", "equalizr=f=1000"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("\"equalizr\""), "names the filter: \(typo.stderr)")
        let options = try await Mediaplay.run(["play", file, "--af", "equalizer=q=banana"])
        #expect(options.status == 64 && options.stderr.contains("\"equalizer\""), "\(options.stderr)")
        #expect(!options.stderr.contains("Parsed_"), "no libavfilter log lines: \(options.stderr)")
        // In config.toml: a command that plays stops with exit 78 naming it;
        // one that does not (config) never loads libavfilter for it.
        let home = try TemporaryDirectory()
        _ = try home.write("mediaplay/config.toml", "[playback]\naf = \"equalizr=f=1000\"\n")
        let configured = ["XDG_CONFIG_HOME": home.path]
        let refused = try await Mediaplay.run(["play", file, "--no-audio", "--untimed"], environment: configured)
        #expect(refused.status == 78 && refused.stderr.contains("af: libavfilter has no filter \"equalizr\""), "\(refused.stderr)")
        let shown = try await Mediaplay.run(["config"], environment: configured)
        #expect(shown.status == 0 && shown.stdout.contains("equalizr=f=1000"), "\(shown.stdout)\(shown.stderr)")
    }

    /// The background player: status names the gain; loudness cycles it.
    @Test func statusShowsTheGainAndLoudnessCycles() async throws {
        let file = try await Self.tagged("rg-long.flac", codec: ["-c:a", "flac"], tags: Self.rgTags)
        let world = try await UserHome()
        world.feed = try world.folder.write("feed.json", #"[{"type": "audio", "title": "Tagged", "url": "file://\#(file)"}]"#)
        #expect(try await world.run("toggle", "1").status == 0)
        _ = try await world.run("toggle", "1")
        let status = try await world.run("status")
        #expect(status.stdout.contains("gain −6.5 dB (track)"), "a single item: the track's gain\n\(status.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try await world.run("status", "--json").stdout.utf8)) as? [String: Any]
        let gain = (json?["current"] as? [String: Any])?["gain"] as? [String: Any]
        #expect(gain?["source"] as? String == "track")
        let cycled = try await world.run("loudness", "cycle")
        #expect(cycled.stdout.contains("loudness tags"), "\(cycled.stdout)\(cycled.stderr)")
        let off = try await world.run("loudness", "off")
        #expect(off.stdout.contains("loudness off"))
        #expect(!(try await world.run("status")).stdout.contains("gain "), "off: no gain")
        #expect(try await world.run("loudness", "loud").status == 64)
        _ = try await world.run("quit")
    }
}
