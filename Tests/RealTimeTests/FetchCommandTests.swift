import Foundation
import Testing
import TestKit

/// Two `fetch` processes and a `list` at once, against the loopback server.
@Suite struct FetchCommandTests {
    @Test func twoProcessesMakeOneTransfer() async throws {
        let setup = try await LoopbackClipFeed(size: 2_000_000)
        // The transfer stops half way until released: "in progress" without timing.
        setup.server.inject("/clip.mp4", [.holdAfter(1_000_000)])
        let a = try Mediaplay.start(["fetch", "1"] + setup.arguments)
        let b = try Mediaplay.start(["fetch", "1"] + setup.arguments)
        // While they run, list (a third process) sees the download in progress:
        // the one transfer holds the entry's lock from before it makes the
        // part file until it ends (held half way here).
        try await Wait.until(changesAt: setup.cacheDir + "/entries", timeout: 20) { setup.entryFiles().contains { $0.hasSuffix(".part") } }
        let list = try await Mediaplay.run(["list", "--json"] + setup.arguments)
        let lastList = "status \(list.status): \(list.stdout.prefix(2000))\(list.stderr)"
        let sawDownloading = list.stdout.contains("\"state\" : \"downloading\"")
        setup.server.release("/clip.mp4")
        let resultA = try await a.wait()
        let resultB = try await b.wait()
        #expect(resultA.status == 0, "\(resultA.stderr)")
        #expect(resultB.status == 0, "\(resultB.stderr)")
        #expect(sawDownloading, "the last list: \(lastList)")
        #expect(setup.server.getCount("/clip.mp4") == 1)
        #expect(try await sha256(ofFile: try #require(setup.dataFile())) == sha256(setup.bytes))
    }
}
