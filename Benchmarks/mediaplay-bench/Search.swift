import Foundation
import MediaBrowse
import MediaFeed

/// browse's search at 100,000 items: each keystroke's filter, layout and
/// frame (MediaBrowse.SearchTiming, the code browse runs for a key), against
/// one frame at 60 Hz (16.7 ms). The feed is the feeds benchmark's.
func searchBenchmark(runs: Int) throws {
    let text = feedText(count: 100_000, pretty: false)
    let feed = try FeedDecoder.decode(Array(text.utf8), origin: .unknown)
    let query = "item number 4242"
    print("Search benchmark: browse's / at \(feed.items.count) items, typing \"\(query)\", 160×48, median of \(runs) runs")
    print("")
    var perKey: [[Double]] = Array(repeating: [], count: query.count + 1)
    for _ in 0..<runs {
        for (index, seconds) in SearchTiming.keystrokes(feed: feed, query: query).enumerated() { perKey[index].append(seconds) }
    }
    print("| key | median | worst |")
    print("|---|---|---|")
    let keys = ["/"] + query.map { $0 == " " ? "space" : String($0) }
    for (key, times) in zip(keys, perKey) {
        print(String(format: "| %@ | %.2f ms | %.2f ms |", key as NSString, median(times) * 1000, (times.max() ?? 0) * 1000))
    }
    let slowest = perKey.map(median).max() ?? 0
    print("")
    print(String(format: "slowest key (median): %.2f ms; one frame at 60 Hz: 16.67 ms", slowest * 1000))
    headline("browse search, slowest keystroke at 100,000 items", mediaplay: String(format: "%.2f ms", slowest * 1000), anchor: "a frame at 60 Hz 16.67 ms", ratio: slowest / (1.0 / 60), target: "≤ 1×")
}
