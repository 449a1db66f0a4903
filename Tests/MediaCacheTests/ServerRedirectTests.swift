import Foundation
@testable import MediaCache
import Testing

/// A media server's URL is redirected only within the server: the header
/// lines libcurl hands over stop the transfer at a `Location` elsewhere,
/// however the status line is written, and at one that cannot be read.
@Suite struct ServerRedirectTests {
    let server = URL(string: "http://music.example.org:4533/rest/stream.view?id=1")!

    /// Feeds `lines` in order; the index of the line that stopped the transfer, if any.
    func stop(_ lines: [String], stayOn: URL?) -> (at: Int?, refused: String?) {
        var headers = ResponseHeaders()
        headers.stayOn = stayOn
        for (index, line) in lines.enumerated() {
            let going = Array((line + "\r\n").utf8).withUnsafeBytes { headers.add(line: $0) }
            if !going { return (index, headers.refusedRedirect) }
        }
        return (nil, headers.refusedRedirect)
    }

    @Test(arguments: ["HTTP/1.1 302 Found", "HTTP/1.1 302", "HTTP/1.1  302  Found", "HTTP/2 302", "HTTP/1.1 3O2 Odd"])
    func aRedirectElsewhereStops(_ status: String) {
        let result = stop([status, "Location: https://cdn.example.net/a.mp3"], stayOn: server)
        #expect(result.at == 1)
        #expect(result.refused == "cdn.example.net")
    }

    @Test func anotherPortIsAnotherServer() {
        #expect(stop(["HTTP/1.1 301 Moved", "Location: http://music.example.org:8080/a.mp3"], stayOn: server).refused == "music.example.org:8080")
        #expect(stop(["HTTP/1.1 301 Moved", "Location: https://music.example.org:4533/a.mp3"], stayOn: server).at == 1)
    }

    @Test func withinTheServerGoesOn() {
        for location in ["/files/a.mp3", "a.mp3", "http://MUSIC.example.org:4533/files/a.mp3", "//music.example.org:4533/b.mp3"] {
            #expect(stop(["HTTP/1.1 302 Found", "Location: \(location)", "HTTP/1.1 200 OK", "Content-Length: 5"], stayOn: server).at == nil, "\(location)")
        }
        // The default port written out is the same server.
        let plain = URL(string: "http://music.example.org/rest/stream.view?id=1")!
        #expect(stop(["HTTP/1.1 302 Found", "Location: http://music.example.org:80/a.mp3"], stayOn: plain).at == nil)
    }

    @Test func anUnreadableTargetStops() {
        let result = stop(["HTTP/1.1 302 Found", "Location: http://exa mple.net/a b"], stayOn: server)
        #expect(result.at == 1)
        #expect(result.refused == "another host")
    }

    /// A URL no server made follows redirects anywhere (libcurl's own limits
    /// apply); a Location on an answer that is no redirect stops nothing.
    @Test func otherTransfersAreNotStopped() {
        #expect(stop(["HTTP/1.1 302 Found", "Location: https://cdn.example.net/a.mp3"], stayOn: nil).at == nil)
        #expect(stop(["HTTP/1.1 201 Created", "Location: https://cdn.example.net/a.mp3"], stayOn: server).at == nil)
    }
}
