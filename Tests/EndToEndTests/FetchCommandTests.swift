import Foundation
import Testing
import InProcessRunner
import TestKit

/// `mediaplay fetch`, `list` and `cache` as processes against the loopback
/// server: crash safety, one transfer across processes, disk full.
@Suite struct FetchCommandTests {
    /// `fetch` and `cache` run in mediaplay-cache; mediaplay-core has the
    /// same commands for its own help: both must say the same.
    @Test func mediaplayCacheRunsTheSameCommandsAsMediaplayCore() async throws {
        let core = (Mediaplay.executable as NSString).deletingLastPathComponent + "/mediaplay-core"
        for command in [["fetch", "--help"], ["cache", "--help"], ["cache", "remove", "--help"]] {
            let here = try await Mediaplay.run(command)
            let there = try await Mediaplay.start(command, executable: core).wait()
            #expect(here.status == 0 && here.stdout == there.stdout, "\(command)")
        }
        let bad = try await Mediaplay.run(["fetch", "--jobs", "0", "1"])
        #expect(bad.status == 64 && bad.stderr.contains("--jobs takes 1 to 64"), "\(bad.stderr)")
    }

    /// `mediaplay` hands `fetch` to mediaplay-cache (it works with no
    /// mediaplay-core beside it), and to mediaplay-core in an install that
    /// lacks mediaplay-cache.
    @Test func fetchRunsInMediaplayCacheElseInMediaplayCore() async throws {
        let setup = try await LoopbackClipFeed()
        let built = (Mediaplay.executable as NSString).deletingLastPathComponent
        for (helper, other) in [("mediaplay-cache", "mediaplay-core"), ("mediaplay-core", "mediaplay-cache")] {
            let folder = try TemporaryDirectory()
            for program in ["mediaplay", helper] {
                // A hard link where the build folder allows (the programs are
                // 90 MB each), else a copy.
                do { try FileManager.default.linkItem(atPath: built + "/" + program, toPath: folder.path + "/" + program) } catch {
                    try FileManager.default.copyItem(atPath: built + "/" + program, toPath: folder.path + "/" + program)
                }
            }
            let cacheDir = folder.path + "/cache"
            let fetched = try await Mediaplay.start(["fetch", "1", "--feed", setup.feed, "--cache-dir", cacheDir], executable: folder.path + "/mediaplay").wait()
            #expect(fetched.status == 0 && fetched.stderr.contains("cached"), "with only \(helper): \(fetched.stderr)")
            let listed = try await Mediaplay.start(["cache", "list", "--feed", setup.feed, "--cache-dir", cacheDir], executable: folder.path + "/mediaplay").wait()
            #expect(listed.status == 0 && listed.stdout.contains("cached"), "with only \(helper): \(listed.stdout)\(listed.stderr)")
            if other == "mediaplay-core" {
                let played = try await Mediaplay.start(["play", "1", "--feed", setup.feed], executable: folder.path + "/mediaplay").wait()
                #expect(played.status == 69 && played.stderr.contains("mediaplay-core is missing"), "\(played.stderr)")
            }
        }
    }

    @Test func fetchPrintsOneLinePerStateChangeOffATerminal() async throws {
        let setup = try await LoopbackClipFeed()
        let result = try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments)
        #expect(result.status == 0)
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first == "1 \"Clip\": downloading")
        #expect(lines.last?.hasPrefix("1 \"Clip\": cached 977 KiB in ") == true)
        #expect(lines.count == 2)
        #expect(try await sha256(ofFile: try #require(setup.dataFile())) == sha256(setup.bytes))

        let again = try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments)
        #expect(again.stderr == "1 \"Clip\": already cached 977 KiB\n")
        #expect(setup.server.getCount("/clip.mp4") == 1)

        let list = try await Mediaplay.runInProcess(["list"] + setup.arguments)
        #expect(list.stdout.contains("cached"))
        #expect(list.stdout.contains("977 KiB"))
    }

    @Test func failedDownloadIsExit69WithTheReasonAndTheRetryCommand() async throws {
        let setup = try await LoopbackClipFeed()
        let result = try await Mediaplay.runInProcess(["fetch", "2"] + setup.arguments)
        #expect(result.status == 69)
        #expect(result.stderr.contains("2 \"Gone\": failed: HTTP 404 from 127.0.0.1"))
        // A 404 will not mend by retrying: the address is what is wrong.
        #expect(result.stderr.hasSuffix("mediaplay: 1 of 1 download failed: not found at the address the feed gives (check the feed's URL for that item)\n"), "\(result.stderr)")
        // A server that fails (5xx after retries) is worth a retry, with the options given.
        setup.server.serve("/clip.mp4", bytes: [1, 2, 3])
        setup.server.inject("/clip.mp4", Array(repeating: .status(403), count: 8))
        let failing = try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments)
        #expect(failing.status == 69)
        #expect(failing.stderr.hasSuffix("(retry: mediaplay fetch 1 --feed \(setup.feed) --cache-dir \(setup.cacheDir))\n"), "\(failing.stderr)")
        let list = try await Mediaplay.runInProcess(["list", "--json"] + setup.arguments)
        #expect(list.stdout.contains("\"state\" : \"failed\""))
        #expect(list.stdout.contains("\"error\" : \"HTTP 404 from 127.0.0.1\""))
        #expect(try await Mediaplay.runInProcess(["fetch", "9"] + setup.arguments).status == 66)
        #expect(try await Mediaplay.runInProcess(["fetch"] + setup.arguments).status == 64)
    }

    @Test func killNineMidDownloadLeavesAResumablePartialEntry() async throws {
        // The server holds the transfer at 2 MB: it is killed after its first
        // 1 MiB write and before the end, however busy the machine.
        let setup = try await LoopbackClipFeed(size: 4_000_000)
        setup.server.inject("/clip.mp4", [.holdAfter(2_000_000)])
        let first = try Mediaplay.start(["fetch", "1"] + setup.arguments)
        try await Wait.until(changesAt: setup.cacheDir + "/entries", timeout: 20) { setup.partSize() >= 1 << 20 }
        first.kill(SIGKILL)
        let killed = try await first.wait()
        #expect(killed.status == SIGKILL)
        #expect(killed.killedBySignal)

        // Never a corrupt "cached" file: only the partial one.
        #expect(setup.dataFile() == nil)
        let kept = setup.partSize()
        #expect(kept >= 1 << 20 && kept < 4_000_000)
        let list = try await Mediaplay.run(["list", "--json"] + setup.arguments)
        #expect(list.stdout.contains("\"state\" : \"partial\""))

        let second = try await Mediaplay.run(["fetch", "1"] + setup.arguments)
        #expect(second.status == 0)
        #expect(try await sha256(ofFile: try #require(setup.dataFile())) == sha256(setup.bytes))
        let requests = setup.server.requests("/clip.mp4")
        #expect(requests.count == 2)
        let range = try #require(requests[1].headers["range"])
        #expect(Int(range.dropFirst(6).dropLast())! >= kept - 1)
        #expect(requests[1].headers["if-range"] != nil)
    }

    /// Ctrl-C (or SIGTERM) keeps every byte gathered: the transfer writes
    /// what it holds in memory (up to a MiB) before the process exits.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalKeepsWhatWasGathered(_ number: Int32) async throws {
        let setup = try await LoopbackClipFeed(size: 2_000_000)
        setup.server.inject("/clip.mp4", [.holdAfter(300_000)])
        let fetch = try Mediaplay.start(["fetch", "1"] + setup.arguments)
        // Sent (the server says when), then a moment for the client to read
        // it off the socket: what the client has read shows nowhere outside
        // it (written to the part file only as it stops, which is what this
        // checks), so no event exists for that.
        #expect(await setup.server.waitUntilSent("/clip.mp4", atLeast: 300_000))
        try await Task.sleep(for: .milliseconds(500))
        fetch.kill(number)
        let result = try await fetch.wait()
        #expect(!result.killedBySignal && result.status == 128 + number, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("stopped; what was downloaded is kept (resume with: mediaplay fetch 1 --feed \(setup.feed) --cache-dir \(setup.cacheDir))"), "\(result.stderr)")
        #expect(setup.partSize() == 300_000, "every byte received is in the part file")
        let resumed = try await Mediaplay.run(["fetch", "1"] + setup.arguments)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(setup.server.requests("/clip.mp4").last?.headers["range"] == "bytes=300000-")
        #expect(try await sha256(ofFile: try #require(setup.dataFile())) == sha256(setup.bytes))
    }

    /// A damaged index is rebuilt from the entry files, which are the truth
    /// about bytes: a cached item stays cached (it used to read "not
    /// downloaded"), and nothing is fetched again.
    @Test func aCorruptIndexIsRebuiltAndCachedItemsStayCached() async throws {
        let setup = try await LoopbackClipFeed(size: 50_000)
        #expect(try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments).status == 0)
        // A part file whose ranges only the index knew.
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: setup.cacheDir + "/entries/" + String(repeating: "a", count: 64) + ".mp3.part"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: setup.cacheDir + "/index.sqlite" + suffix) }
        try Data(String(repeating: "not a database ", count: 500).utf8).write(to: URL(fileURLWithPath: setup.cacheDir + "/index.sqlite"))

        let list = try await Mediaplay.runInProcess(["list", "--json"] + setup.arguments)
        #expect(list.status == 0)
        #expect(list.stderr.contains("the cache index was damaged and has been rebuilt"), "\(list.stderr)")
        #expect(list.stdout.contains("\"state\" : \"cached\""), "\(list.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: setup.cacheDir)
        #expect(files.contains { $0.hasPrefix("index.sqlite.corrupt-") }, "the damaged index is kept aside: \(files)")
        #expect(!setup.entryFiles().contains { $0.hasSuffix(".part") }, "parts of unknown shape are dropped")
        let again = try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments)
        #expect(again.stderr.contains("already cached"), "\(again.stderr)")
        #expect(setup.server.getCount("/clip.mp4") == 1)
    }

    @Test func diskFullIsAClearErrorAndThePartialResumes() async throws {
        let setup = try await LoopbackClipFeed(size: 1_000_000)
        // A file size limit makes writes fail as on a full disk (EFBIG).
        let limited = try Mediaplay.start(["--fsize=400000", Mediaplay.executable, "fetch", "1"] + setup.arguments, executable: "/usr/bin/prlimit")
        let result = try await limited.wait()
        #expect(result.status == 74)
        #expect(result.stderr.contains("no space left on the disk holding"))
        #expect(result.stderr.contains("the partial download is kept"))
        #expect(setup.dataFile() == nil)
        #expect(setup.partSize() > 0)

        let retry = try await Mediaplay.run(["fetch", "1"] + setup.arguments)
        #expect(retry.status == 0)
        #expect(try await sha256(ofFile: try #require(setup.dataFile())) == sha256(setup.bytes))
        #expect(setup.server.requests("/clip.mp4").last?.headers["range"] != nil)
    }

    @Test func cacheListSizeAndClear() async throws {
        let setup = try await LoopbackClipFeed(size: 10_000)
        _ = try await Mediaplay.runInProcess(["fetch", "1"] + setup.arguments)
        let list = try await Mediaplay.runInProcess(["cache", "list"] + setup.arguments)
        #expect(list.stdout.contains("cached"))
        #expect(list.stdout.contains("1  Clip"), "listed by item: \(list.stdout)")
        let json = try await Mediaplay.runInProcess(["cache", "list", "--json"] + setup.arguments)
        #expect(json.stdout.contains("\"state\":\"cached\"") && json.stdout.contains("/clip.mp4"))
        #expect(try await Mediaplay.runInProcess(["cache", "size", "--bytes"] + setup.arguments).stdout == "10000\n")
        let clear = try await Mediaplay.runInProcess(["cache", "clear"] + setup.arguments)
        #expect(clear.stdout == "Removed 1 entry, 9.8 KiB freed.\n")
        #expect(try await Mediaplay.runInProcess(["cache", "size", "--bytes"] + setup.arguments).stdout == "0\n")
        #expect(try await Mediaplay.runInProcess(["list", "--json"] + setup.arguments).stdout.contains("\"state\" : \"not-downloaded\""))
    }
}
