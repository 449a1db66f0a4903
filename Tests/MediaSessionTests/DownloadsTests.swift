@testable import MediaSession
import MediaModel
import Testing

/// Whole-file downloads alone: what each step keeps and what it announces.
@Suite struct DownloadsTests {
    @Test func aDownloadBeginsGoesAndEnds() {
        var downloads = Downloads()
        #expect(downloads["pic"] == nil)
        #expect(downloads.went(.began, for: "pic") == .state)
        #expect(downloads["pic"] == .some(nil), "under way, its size not known yet")
        #expect(downloads.went(.progress(0.5), for: "pic") == .progress)
        #expect(downloads["pic"] == .some(0.5))
        #expect(Set(downloads.keys) == ["pic"])
        #expect(downloads.went(.ended, for: "pic") == nil, "the start says what comes next")
        #expect(downloads["pic"] == nil)
    }

    @Test func itemsLeftOutAreForgotten() {
        var downloads = Downloads()
        _ = downloads.went(.began, for: "a")
        _ = downloads.went(.began, for: "b")
        downloads.keep { $0 == "b" }
        #expect(Set(downloads.keys) == ["b"])
    }
}
