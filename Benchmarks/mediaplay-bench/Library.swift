import Foundation
import TestKit

/// A media server's library as a feed: a 10,000-song Subsonic library
/// (Debian's Supysonic on loopback; its files and scan made once, kept in
/// .build/bench-library) listed cold (an empty cache: every page asked of
/// the server) and warm (the kept library), and a 10,000-item DLNA
/// container (minidlna, in a network namespace) listed cold. The anchor of
/// a cold list is the same API calls made by one curl process in the same
/// run. Targets: warm ≤ 0.1 s; cold ≤ 1.5× curl.
func libraryBenchmark(runs: Int, songs: Int) async throws {
    for tool in ["/usr/bin/supysonic-cli", "/usr/sbin/minidlnad", "/usr/bin/curl", "/usr/sbin/ip"] where !FileManager.default.isExecutableFile(atPath: tool) {
        print("(\(tool) not installed: scripts/install-deps.sh --test)")
        return
    }
    let build = ((mediaplay as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    let library = build + "/bench-library/supysonic-\(songs)"
    try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
    let scratch = try TemporaryDirectory()
    let base = scratch.path + "/base.mp3"
    _ = measured("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", "-c:a", "libmp3lame", "-b:a", "32k", base])
    print("Library benchmark: \(songs) songs, median of \(runs) runs (the first Supysonic scan takes minutes, once)")
    print("")
    let server = try await SupysonicServer.start(library: library) { music in
        // Tagged copies of one small MP3, by Python's mutagen (Supysonic's own
        // tag library's base): ffmpeg once per file took minutes.
        let script = try scratch.write("make.py", #"""
            import os, sys
            from mutagen.id3 import ID3, TIT2, TPE1, TALB, TRCK
            base, root, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
            data = open(base, "rb").read()
            for i in range(count):
                album, track = i // 10, i % 10 + 1
                folder = os.path.join(root, "Artist %03d" % (album // 10), "Album %04d" % album)
                os.makedirs(folder, exist_ok=True)
                path = os.path.join(folder, "%02d.mp3" % track)
                with open(path, "wb") as f:
                    f.write(data)
                tags = ID3()
                tags.add(TIT2(encoding=3, text="Song %05d" % (i + 1)))
                tags.add(TPE1(encoding=3, text="Artist %03d" % (album // 10)))
                tags.add(TALB(encoding=3, text="Album %04d" % album))
                tags.add(TRCK(encoding=3, text=str(track)))
                tags.save(path)
            """#)
        _ = measured("/usr/bin/python3", [script, base, music, String(songs)])
    }
    let feed = server.feed
    // The calls a cold list makes: a token ping (refused: API 1.10.2), the
    // password form's ping, then search3's pages until an empty one.
    let hex = SupysonicServer.password.utf8.map { String(format: "%02x", $0) }.joined()
    let rest = "http://127.0.0.1:\(server.port)/rest/"
    let login = "u=alice&v=1.10.2&c=mediaplay&p=enc:\(hex)"
    var calls = [rest + "ping.view?f=json&u=alice&t=0123456789abcdef0123456789abcdef&s=0123456789ab&v=1.13.0&c=mediaplay", rest + "ping.view?f=json&" + login]
    for page in 0...(songs + 499) / 500 {
        calls.append(rest + "search3.view?query=&artistCount=0&albumCount=0&songCount=500&songOffset=\(page * 500)&f=json&" + login)
    }
    // The calls in a config file curl reads (-K), owner-only: the password
    // form is never on a command line another user's `ps` shows.
    let curlConfig = scratch.path + "/calls.curlrc"
    let configText = calls.map { "url = \"\($0)\"\noutput = \"/dev/null\"\n" }.joined()
    guard FileManager.default.createFile(atPath: curlConfig, contents: Data(configText.utf8), attributes: [.posixPermissions: 0o600]) else {
        throw BenchError("cannot write \(curlConfig)")
    }
    var cold: [Double] = [], warm: [Double] = [], curl: [Double] = []
    for run in 0..<runs {
        let cache = scratch.path + "/cache-\(run)"
        let first = measured(mediaplay, ["list", "--json", "--feed", feed, "--cache-dir", cache])
        cold.append(first.wall)
        warm.append(measured(mediaplay, ["list", "--json", "--feed", feed, "--cache-dir", cache]).wall)
        curl.append(measured("/usr/bin/curl", ["-sS", "--fail", "-K", curlConfig]).wall)
    }
    // Ended before minidlna's rows: nothing else shares the cores.
    await server.server.stop()

    // minidlna: one folder of `songs` files (links to one small MP3), read as container 64$0 (the folder view's first).
    let dlna = try await MiniDLNAServer.start { media in
        let flat = media + "/flat"
        try FileManager.default.createDirectory(atPath: flat, withIntermediateDirectories: true)
        for index in 0..<songs { try FileManager.default.linkItem(atPath: base, toPath: flat + String(format: "/%05d.mp3", index)) }
    }
    let container = "64$0"
    let dlnaFeed = dlna.feed + "#" + container
    var posts: [String] = ["http://127.0.0.1:\(MiniDLNAServer.port)/rootDesc.xml"]
    for page in 0..<max(1, (songs + 499) / 500) {
        let body = """
            <?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">\
            <s:Body><u:Browse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><ObjectID>\(container)</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag>\
            <Filter>*</Filter><StartingIndex>\(page * 500)</StartingIndex><RequestedCount>500</RequestedCount><SortCriteria></SortCriteria></u:Browse></s:Body></s:Envelope>
            """
        posts += [
            "--next", "-sS", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: text/xml; charset=\"utf-8\"",
            "-H", "SOAPACTION: \"urn:schemas-upnp-org:service:ContentDirectory:1#Browse\"", "--data-binary", body,
            "http://127.0.0.1:\(MiniDLNAServer.port)/ctl/ContentDir",
        ]
    }
    var dlnaCold: [Double] = [], dlnaCurl: [Double] = []
    for run in 0..<runs {
        let cache = scratch.path + "/dlna-cache-\(run)"
        dlnaCold.append(measured("/usr/sbin/ip", ["netns", "exec", dlna.namespace, mediaplay, "list", "--json", "--feed", dlnaFeed, "--cache-dir", cache]).wall)
        dlnaCurl.append(measured("/usr/sbin/ip", ["netns", "exec", dlna.namespace, "/usr/bin/curl", "-sS", "-o", "/dev/null"] + posts).wall)
    }
    print("| run | median | range |")
    print("|---|---|---|")
    func row(_ name: String, _ times: [Double]) {
        print("| \(name) | \(String(format: "%.3f", median(times))) s | \(String(format: "%.3f–%.3f s", times.min()!, times.max()!)) |")
    }
    row("Subsonic: curl, the \(calls.count) calls of a cold list", curl)
    row("Subsonic: `mediaplay list --json`, cold (empty cache)", cold)
    row("Subsonic: `mediaplay list --json`, warm (kept library)", warm)
    row("DLNA: curl, the description and \(posts.filter { $0 == "--next" }.count) Browse pages", dlnaCurl)
    row("DLNA: `mediaplay list --json`, cold", dlnaCold)
    headline(
        "list --json, a \(grouped(songs))-song Subsonic library, cold", mediaplay: String(format: "%.3f s", median(cold)),
        anchor: String(format: "curl, same calls %.3f s", median(curl)), ratio: median(cold) / median(curl), target: "≤ 1.5×"
    )
    headline(
        "list --json, the same library kept (warm)", mediaplay: String(format: "%.3f s", median(warm)),
        anchor: "the target, 0.100 s", ratio: median(warm) / 0.1, target: "≤ 1× (0.1 s)"
    )
    headline(
        "list --json, a \(grouped(songs))-item DLNA container, cold", mediaplay: String(format: "%.3f s", median(dlnaCold)),
        anchor: String(format: "curl, same calls %.3f s", median(dlnaCurl)), ratio: median(dlnaCold) / median(dlnaCurl), target: "≤ 1.5×"
    )
}

/// 10000 as "10,000".
private func grouped(_ number: Int) -> String {
    var digits = Array(String(number))
    var index = digits.count - 3
    while index > 0 {
        digits.insert(",", at: index)
        index -= 3
    }
    return String(digits)
}
