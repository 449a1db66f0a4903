import Foundation
import TestKit

/// `list --json` of a 5,000-episode podcast RSS, in three shapes real feeds
/// have (long HTML notes in CDATA; short notes in CDATA; many namespaced
/// tags per item with escaped HTML notes), each side by side with
/// `xmllint --xpath '//item/title/text()'` on the same file, which parses
/// the same XML with the same library and prints only the titles. The
/// median of `runs` for each; the worst shape is the headline.
/// Target: at most 1.5× xmllint, for every shape.
func podcastBenchmark(runs: Int) throws {
    let scratch = try TemporaryDirectory()
    let cache = scratch.path + "/cache"
    _ = measured(mediaplay, ["cache", "list", "--cache-dir", cache])
    print("Podcast benchmark: a 5,000-episode RSS in three shapes, median of \(runs) runs each")
    print("")
    print("| shape | size | xmllint | mediaplay list --json | range | peak RSS | vs xmllint |")
    print("|---|---|---|---|---|---|---|")
    var worst: (shape: PodcastShape, ours: Double, xmllint: Double)?
    for shape in PodcastShape.allCases {
        let path = scratch.path + "/\(shape.rawValue).xml"
        let text = podcastText(episodes: 5_000, shape: shape)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var ours: [Double] = []
        var xmllint: [Double] = []
        // Interleaved, so that the machine's moods fall on both alike.
        for _ in 0..<runs {
            ours.append(measured(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache]).wall)
            xmllint.append(measured("/usr/bin/xmllint", ["--xpath", "//item/title/text()", path]).wall)
        }
        let rss = peakRSSMiB(mediaplay, ["list", "--json", "--feed", path, "--cache-dir", cache])
        let ratio = median(ours) / median(xmllint)
        print("| \(shape.description) | \(String(format: "%.1f MiB", mib(text.utf8.count))) | \(String(format: "%.3f s", median(xmllint))) | \(String(format: "%.3f s", median(ours))) | \(String(format: "%.3f–%.3f s", ours.min()!, ours.max()!)) | \(String(format: "%.0f MiB", rss)) | \(String(format: "%.2f", ratio))× |")
        if worst == nil || ratio > worst!.ours / worst!.xmllint { worst = (shape, median(ours), median(xmllint)) }
    }
    guard let worst else { return }
    print("")
    print("Worst shape: \(worst.shape.description), \(String(format: "%.2f", worst.ours / worst.xmllint))× xmllint")
    headline(
        "list --json, a 5,000-episode podcast RSS (worst of 3 shapes: \(worst.shape.rawValue))", mediaplay: String(format: "%.3f s", worst.ours),
        anchor: String(format: "xmllint %.3f s", worst.xmllint), ratio: worst.ours / worst.xmllint, target: "≤ 1.5×"
    )
}

/// The shapes of a podcast's items the benchmark reads.
enum PodcastShape: String, CaseIterable, CustomStringConvertible {
    /// A kilobyte of HTML notes in CDATA per episode (a long-running talk show).
    case longNotes = "long-notes"
    /// A line of notes in CDATA (a daily news show): the file is mostly tags.
    case shortNotes = "short-notes"
    /// Many namespaced tags per item (iTunes, Podcasting 2.0, Media RSS,
    /// Dublin Core) and notes as escaped HTML, not CDATA.
    case manyTags = "many-tags"

    var description: String {
        switch self {
        case .longNotes: return "long HTML notes (CDATA)"
        case .shortNotes: return "short notes (CDATA)"
        case .manyTags: return "many namespaced tags, escaped notes"
        }
    }
}

/// A podcast like a long-running real one: per episode a title, a guid, an
/// enclosure, a date, a duration, an image and notes in the shape asked.
func podcastText(episodes: Int, shape: PodcastShape = .longNotes) -> String {
    var text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/" \
    xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:dc="http://purl.org/dc/elements/1.1/">
    <channel>
    <title>A Very Long Running Show</title>
    <itunes:image href="https://cdn.example.org/show/cover.jpg"/>

    """
    let longNotes = String(repeating: "<p>In this episode we talk about <b>many things</b> &amp; more, with links to <a href=\"https://example.org/\">our sponsor</a>.</p>", count: 7)
    let escapedNotes = "&lt;p&gt;Guests &amp;amp; news of the week, &lt;a href=&quot;https://example.org/&quot;&gt;links&lt;/a&gt; and more.&lt;/p&gt;"
    for number in stride(from: episodes, to: 0, by: -1) {
        let common = """
          <title>Episode \(number): A conversation about things</title>
          <guid isPermaLink="false">show-episode-\(number)</guid>
          <pubDate>Mon, 0\(number % 9 + 1) Jan 2024 06:00:00 +0000</pubDate>
          <enclosure url="https://cdn.example.org/show/episode-\(number).mp3" length="\(50_000_000 + number)" type="audio/mpeg"/>
          <itunes:duration>01:\(10 + number % 50):\(10 + number % 49)</itunes:duration>

        """
        switch shape {
        case .longNotes:
            text += "<item>\n" + common + """
              <itunes:image href="https://cdn.example.org/show/\(number).jpg"/>
              <description><![CDATA[\(longNotes)]]></description>
            </item>

            """
        case .shortNotes:
            text += "<item>\n" + common + """
              <description><![CDATA[<p>News for day \(number).</p>]]></description>
            </item>

            """
        case .manyTags:
            text += "<item>\n" + common + """
              <link>https://example.org/episodes/\(number)</link>
              <dc:creator>The Hosts</dc:creator>
              <itunes:episode>\(number)</itunes:episode>
              <itunes:season>\(number / 100 + 1)</itunes:season>
              <itunes:episodeType>full</itunes:episodeType>
              <itunes:explicit>false</itunes:explicit>
              <itunes:author>The Hosts</itunes:author>
              <itunes:subtitle>Things, talked about</itunes:subtitle>
              <itunes:keywords>talk, things, weekly</itunes:keywords>
              <itunes:image href="https://cdn.example.org/show/\(number).jpg"/>
              <podcast:transcript url="https://cdn.example.org/show/\(number).vtt" type="text/vtt" language="en"/>
              <podcast:chapters url="https://cdn.example.org/show/\(number).json" type="application/json+chapters"/>
              <podcast:person role="host" img="https://cdn.example.org/host.jpg">A Host</podcast:person>
              <podcast:season>\(number / 100 + 1)</podcast:season>
              <podcast:episode>\(number)</podcast:episode>
              <media:content url="https://cdn.example.org/show/episode-\(number).mp3" type="audio/mpeg" medium="audio"/>
              <media:thumbnail url="https://cdn.example.org/show/\(number)-small.jpg"/>
              <description>\(escapedNotes)</description>
            </item>

            """
        }
    }
    return text + "</channel>\n</rss>\n"
}
