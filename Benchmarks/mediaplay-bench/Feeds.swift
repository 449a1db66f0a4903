import Foundation
import TestKit

/// `list --json` on generated feeds of 1k, 10k and 100k items, minified and
/// pretty-printed, side by side with `jq -r '.items[].title'` on the same
/// files: wall time (median and range) and peak RSS, and how time grows
/// with the feed (10× the items should take about 10× the time).
func feedsBenchmark(runs: Int) throws {
    let scratch = try TemporaryDirectory()
    let sizes = [1_000, 10_000, 100_000]
    print("Feed benchmark: list --json against jq -r '.items[].title', median of \(runs) runs")
    print("")
    print("| feed | file | mediaplay list --json | range | peak RSS | jq | mediaplay / jq |")
    print("|---|---|---|---|---|---|---|")
    // A cache with its index, as a user has once anything was fetched: list
    // reads the index for every item's state.
    let cache = scratch.path + "/cache"
    _ = measured(mediaplay, ["cache", "list", "--cache-dir", cache])
    var medians: [String: [Double]] = [:]
    for layout in ["minified", "pretty"] {
        for count in sizes {
            let path = scratch.path + "/\(layout)-\(count).json"
            let bytes = feedText(count: count, pretty: layout == "pretty")
            try Data(bytes.utf8).write(to: URL(fileURLWithPath: path))
            var ours: [Measured] = []
            var jq: [Double] = []
            for _ in 0..<runs {
                ours.append(measured(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache]))
                jq.append(measured("/usr/bin/jq", ["-r", ".items[].title", path]).wall)
            }
            let wall = median(ours.map(\.wall))
            medians[layout, default: []].append(wall)
            let range = String(format: "%.3f–%.3f s", ours.map(\.wall).min()!, ours.map(\.wall).max()!)
            let rss = String(format: "%.0f MiB", peakRSSMiB(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache]))
            if count == 10_000, layout == "minified" {
                headline(
                    "list --json, a 10,000-item feed", mediaplay: String(format: "%.3f s", wall),
                    anchor: String(format: "jq %.3f s", median(jq)), ratio: wall / median(jq), target: "≤ 1.5×"
                )
            }
            print("| \(count) items, \(layout) | \(String(format: "%.1f", mib(bytes.utf8.count))) MiB | \(String(format: "%.3f", wall)) s | \(range) | \(rss) | \(String(format: "%.3f", median(jq))) s | \(String(format: "%.2f", wall / median(jq)))× |")
        }
    }
    print("")
    for (layout, times) in medians.sorted(by: { $0.key < $1.key }) {
        print("Growth, \(layout): 10k/1k \(String(format: "%.1f", times[1] / times[0]))×, 100k/10k \(String(format: "%.1f", times[2] / times[1]))×")
    }
}

/// A feed of `count` items like a real one: ids, titles, URLs, descriptions
/// and thumbnails, all three kinds.
func feedText(count: Int, pretty: Bool) -> String {
    let kinds = ["jpg", "mp3", "mp4"]
    let items = (0..<count).map { i in
        let fields = [
            #""type": \#(i % 3)"#, #""id": "item-\#(i)""#, #""title": "Item number \#(i) with a title of some length""#,
            #""url": "https://media.example.org/library/\#(i)/file-\#(i).\#(kinds[i % 3])""#,
            #""description": "A description of the item that goes on for a sentence or two, as real feeds have.""#,
            #""thumbnail": "https://media.example.org/thumbs/\#(i).jpg""#,
        ]
        return pretty ? "    {\n      " + fields.joined(separator: ",\n      ") + "\n    }" : "{" + fields.joined(separator: ",") + "}"
    }
    return pretty
        ? "{\n  \"title\": \"Big feed\",\n  \"items\": [\n" + items.joined(separator: ",\n") + "\n  ]\n}\n"
        : #"{"title":"Big feed","items":["# + items.joined(separator: ",") + "]}"
}

/// Peak RSS of one run, from GNU time: wait4's figure for a child started by
/// posix_spawn counts the spawning process's own memory (the child shares it
/// until exec), so the benchmark's size showed up as the child's.
func peakRSSMiB(_ executable: String, _ args: [String]) -> Double {
    let folder = try? TemporaryDirectory()
    let output = (folder?.path ?? NSTemporaryDirectory()) + "/time.txt"
    _ = measured("/usr/bin/time", ["-o", output, "-f", "%M", executable] + args)
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) / 1024
}
