import Foundation
import TestKit

/// `list --json` of a 5,000-episode podcast RSS (about 6 MB: show notes in
/// CDATA HTML, iTunes tags, enclosures), side by side with
/// `xmllint --xpath '//item/title/text()'` on the same file, which parses
/// the same XML with the same library and prints only the titles.
/// Target: at most 1.5× xmllint.
func podcastBenchmark(runs: Int) throws {
    let scratch = try TemporaryDirectory()
    let path = scratch.path + "/podcast.xml"
    let text = podcastText(episodes: 5_000)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let cache = scratch.path + "/cache"
    _ = measured(mediaplay, ["cache", "list", "--cache-dir", cache])
    var ours: [Double] = []
    var xmllint: [Double] = []
    for _ in 0..<runs {
        ours.append(measured(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache]).wall)
        xmllint.append(measured("/usr/bin/xmllint", ["--xpath", "//item/title/text()", path]).wall)
    }
    let rss = peakRSSMiB(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache])
    print("Podcast benchmark: a 5,000-episode RSS (\(String(format: "%.1f", mib(text.utf8.count))) MiB), median of \(runs) runs")
    print("")
    print("| run | median | range | peak RSS | vs xmllint |")
    print("|---|---|---|---|---|")
    func row(_ name: String, _ times: [Double], rss: String) {
        let range = String(format: "%.3f–%.3f s", times.min()!, times.max()!)
        print("| \(name) | \(String(format: "%.3f", median(times))) s | \(range) | \(rss) | \(String(format: "%.2f", median(times) / median(xmllint)))× |")
    }
    row("`xmllint --xpath '//item/title/text()'`", xmllint, rss: String(format: "%.0f MiB", peakRSSMiB("/usr/bin/xmllint", ["--xpath", "//item/title/text()", path])))
    row("`mediaplay list --json`", ours, rss: String(format: "%.0f MiB", rss))
    headline(
        "list --json, a 5,000-episode podcast RSS", mediaplay: String(format: "%.3f s", median(ours)),
        anchor: String(format: "xmllint %.3f s", median(xmllint)), ratio: median(ours) / median(xmllint), target: "≤ 1.5×"
    )
}

/// A podcast like a long-running real one: per episode a title, a guid, an
/// enclosure, a date, a duration, an image and a kilobyte of HTML notes.
func podcastText(episodes: Int) -> String {
    var text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
    <channel>
    <title>A Very Long Running Show</title>
    <itunes:image href="https://cdn.example.org/show/cover.jpg"/>

    """
    let notes = String(repeating: "<p>In this episode we talk about <b>many things</b> &amp; more, with links to <a href=\"https://example.org/\">our sponsor</a>.</p>", count: 7)
    for number in stride(from: episodes, to: 0, by: -1) {
        text += """
        <item>
          <title>Episode \(number): A conversation about things</title>
          <guid isPermaLink="false">show-episode-\(number)</guid>
          <pubDate>Mon, 0\(number % 9 + 1) Jan 2024 06:00:00 +0000</pubDate>
          <enclosure url="https://cdn.example.org/show/episode-\(number).mp3" length="\(50_000_000 + number)" type="audio/mpeg"/>
          <itunes:duration>01:\(10 + number % 50):\(10 + number % 49)</itunes:duration>
          <itunes:image href="https://cdn.example.org/show/\(number).jpg"/>
          <description><![CDATA[\(notes)]]></description>
        </item>

        """
    }
    return text + "</channel>\n</rss>\n"
}
