import Foundation
import MediaInterfaces
import MediaModel
import MediaPages
import Testing

/// What yt-dlp's JSON (`-J`) becomes: the media checked (http or https
/// only), numbers range-checked, text made safe, headers made sendable.
/// The answers are written here in yt-dlp's shape; the real program is run
/// by the end-to-end WebPageTests.
@Suite struct YTDLAnswerTests {
    let page = URL(string: "https://example.org/watch")!

    func read(_ json: String) throws(PageError) -> ResolvedPage {
        try YTDL.read(Array(json.utf8), page: page)
    }

    @Test func aSingleFileWithItsDetails() throws {
        let resolved = try read(#"""
            {"title": "Harbour\u001b[2J at dawn", "duration": 63.5, "thumbnail": "https://example.org/t.jpg",
             "chapters": [{"start_time": 30, "title": "Two"}, {"start_time": 0, "title": "One"}, {"start_time": 1e300, "title": "Never"}],
             "requested_subtitles": {"en": {"url": "https://example.org/en.vtt", "ext": "vtt"}, "de": {"url": "file:///etc/passwd"}},
             "url": "https://cdn.example.org/v.mp4", "protocol": "https",
             "http_headers": {"User-Agent": "UA", "Referer": "https://example.org/", "Accept-Encoding": "gzip", "Bad\nName": "x", "X-Split": "a\r\nInjected: 1"}}
            """#)
        #expect(resolved.title == "Harbour [2J at dawn")
        #expect(resolved.duration == 63.5)
        #expect(resolved.thumbnail?.absoluteString == "https://example.org/t.jpg")
        #expect(resolved.chapters == [Chapter(start: 0, title: "One"), Chapter(start: 30, title: "Two")])
        #expect(resolved.subtitles == [ResolvedPage.Subtitle(url: URL(string: "https://example.org/en.vtt")!, language: "en")])
        #expect(resolved.media == ResolvedMedia(url: URL(string: "https://cdn.example.org/v.mp4")!, headers: ["User-Agent": "UA", "Referer": "https://example.org/"]))
        #expect(!resolved.isLive)
    }

    @Test func separateTracksOfOneManifestPlayFromIt() throws {
        let resolved = try read(#"""
            {"title": "D", "requested_formats": [
              {"url": "https://e.org/m.mpd", "manifest_url": "https://e.org/m.mpd", "protocol": "http_dash_segments", "vcodec": "avc1", "acodec": "none"},
              {"url": "https://e.org/m.mpd", "manifest_url": "https://e.org/m.mpd", "protocol": "http_dash_segments", "vcodec": "none", "acodec": "mp4a"}]}
            """#)
        #expect(resolved.media == ResolvedMedia(url: URL(string: "https://e.org/m.mpd")!, isManifest: true))
    }

    @Test func separateFilesPlayTogether() throws {
        let resolved = try read(#"""
            {"title": "Y", "requested_formats": [
              {"url": "https://e.org/v.mp4", "protocol": "https", "vcodec": "avc1", "acodec": "none"},
              {"url": "https://e.org/a.m4a", "protocol": "https", "vcodec": "none", "acodec": "mp4a"}],
             "formats": [{"url": "https://e.org/low.mp4", "protocol": "https", "vcodec": "avc1", "acodec": "mp4a"},
                         {"url": "https://e.org/a.m4a", "protocol": "https", "vcodec": "none", "acodec": "mp4a"},
                         {"url": "https://e.org/both.mp4", "protocol": "https", "vcodec": "avc1", "acodec": "mp4a"}]}
            """#)
        #expect(resolved.media.url.absoluteString == "https://e.org/v.mp4" && resolved.audio?.url.absoluteString == "https://e.org/a.m4a")
        #expect(resolved.files.map(\.url.absoluteString) == ["https://e.org/v.mp4", "https://e.org/a.m4a"])
    }

    @Test func hlsIsAManifestAndLiveIsSaid() throws {
        let resolved = try read(#"{"title": "L", "is_live": true, "duration": 12, "url": "https://e.org/live.m3u8", "protocol": "m3u8_native"}"#)
        #expect(resolved.media.isManifest && resolved.isLive && resolved.duration == nil)
    }

    @Test(arguments: [
        #"{"url": "file:///etc/passwd", "protocol": "https"}"#,
        #"{"url": "/etc/passwd", "protocol": "https"}"#,
        #"{"url": "ftp://e.org/x.mp4", "protocol": "ftp"}"#,
        #"{"url": "https://e.org/x", "protocol": "rtmp"}"#,
        #"{"requested_formats": [{"url": "x", "manifest_url": "file:///m.mpd", "protocol": "http_dash_segments"}, {"url": "y", "manifest_url": "file:///m.mpd", "protocol": "http_dash_segments"}]}"#,
    ])
    func nothingLocalNorOfAnotherKind(_ json: String) {
        #expect(throws: PageError.self) { try read(json) }
        do { _ = try read(json) } catch { if case .refused = error {} else { Issue.record("refused, not \(error)") } }
    }

    @Test func notJSONOrAPlaylistIsOneLine() {
        #expect(throws: PageError.self) { try read("<html>") }
        do { _ = try read(#"{"_type": "playlist", "entries": [{}, {}]}"#) } catch {
            #expect(error.description.contains("playlist of 2 items"))
        }
    }

    @Test func aMissingProgramIsTheInstallLine() {
        let ytdl = YTDL(program: "/nonexistent/yt-dlp")
        #expect(ytdl.executable == nil)
        #expect(throws: PageError.noResolver) { try ytdl.resolve(page) }
        #expect(PageError.noResolver.description == "this is a web page; install yt-dlp to play it (apt install yt-dlp, or pip install yt-dlp)")
    }

    /// yt-dlp 2023.07 and later give cookies apart (`cookies`, each followed
    /// by its attributes): only those for the media's host and path go, a
    /// Secure one over https only; an old Cookie header beside it is not used.
    @Test func cookiesGoToTheMediasHostOnly() throws {
        let resolved = try read(#"""
            {"url": "https://cdn.example.org/videos/v.mp4", "protocol": "https",
             "cookies": "a=1; Domain=.example.org; Path=/; b=2; Domain=other.example.com; Path=/; c=3; Domain=cdn.example.org; Path=/audio; d=4; Domain=cdn.example.org; Path=/videos; Secure; e=5; Domain=ample.org; Path=/; f=6; Domain=cdn.example.org.evil; Path=/",
             "http_headers": {"User-Agent": "UA", "Cookie": "stale=1"}}
            """#)
        #expect(resolved.media.headers == ["User-Agent": "UA", "Cookie": "a=1; d=4"])
        let plain = try #require(URL(string: "http://cdn.example.org/videos/v.mp4"))
        #expect(YTDL.cookies("d=4; Domain=cdn.example.org; Path=/; Secure", for: plain) == nil)
    }
}
