import Foundation
import Testing
@testable import MediaCacheFolder

/// A local file's details are kept under its file URL: the quick key must be
/// the one `URL(fileURLWithPath:)` gives, or every file would be probed again.
struct FileKeyTests {
    @Test(arguments: ["/a b/c.mp3", "/tmp/ünï cödé/ф.flac", "/x/%41?#.mp3", "/x/a&b=c;d+e,f:g@h!i$j'k(l)m*n~o.mp3", "/x/[br]{c}|\\^`\"<>.mp3", "/x/tab\there.mp3"])
    func theQuickKeyIsTheFileURL(_ path: String) {
        #expect(KnownDetails.fileKey(path) == URL(fileURLWithPath: path).absoluteString)
    }
}
