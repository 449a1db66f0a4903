import Foundation
import MediaFeed

// libFuzzer target: any bytes as a feed, read as a remote one (the strictest
// origin) and as a local one. Must never crash, trap or hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for origin in [FeedOrigin.remote(URL(string: "https://example.org/feeds/feed.json")!), .file(path: "/feeds/feed.json")] {
        if let feed = try? FeedDecoder.decode(bytes, origin: origin) {
            // Looking items up by what a user might type must not trap either.
            for selector in ["1", "0", "-1", String(Int.min), String(Int.max), feed.items.last?.id ?? "x"] {
                _ = feed.item(matching: selector)
            }
        }
    }
    return 0
}
