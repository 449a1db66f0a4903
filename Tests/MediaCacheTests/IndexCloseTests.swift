import Foundation
@testable import MediaCacheFolder
import Testing
import TestKit

/// A closed cache index leaves its write-ahead log unmerged (no checkpoint
/// and its syncs at a command's exit): what was committed is in the log,
/// and the next open reads it.
@Suite struct IndexCloseTests {
    @Test func aClosedIndexKeepsItsLogAndTheNextOpenReadsIt() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/index.sqlite"
        let body = [UInt8](repeating: 0x61, count: 64 << 10)
        do {
            let index = try CacheIndex(path: path)
            try index.keep(KeptFeed(url: "upnp+http://music.local/", body: body, etag: nil, lastModified: nil, fetched: 1))
        }
        // Closed: the log still holds the kept copy (a checkpoint would have emptied and removed it).
        #expect(Wait.size(of: path + "-wal") > body.count)
        let again = try CacheIndex(path: path)
        #expect(again.keptFeed("upnp+http://music.local/")?.body == body)
    }
}
