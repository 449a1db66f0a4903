import Testing
@testable import MediaCache

/// Internet radio's metadata blocks, taken out of the audio whatever the
/// chunks libcurl hands over.
struct IcyReaderTests {
    /// `interval` audio bytes, then a block, repeated; the blocks' titles.
    static func stream(audio: [UInt8], interval: Int, titles: [String]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        var block = 0
        while offset < audio.count {
            let take = min(interval, audio.count - offset)
            out += audio[offset..<(offset + take)]
            offset += take
            guard take == interval else { break }
            if block < titles.count {
                var text = Array("StreamTitle='\(titles[block])';StreamUrl='';".utf8)
                text += [UInt8](repeating: 0, count: (16 - text.count % 16) % 16)
                out += [UInt8(text.count / 16)] + text
            } else {
                out.append(0)  // no metadata this time
            }
            block += 1
        }
        return out
    }

    @Test(arguments: [1, 3, 7, 16, 100, 4096])
    func audioAndTitlesSurviveAnyChunking(_ chunk: Int) {
        let audio = (0..<1000).map { UInt8($0 % 251) }
        let titles = ["Björk - Jóga", "Artist ' with a quote - Song", "Third"]
        let bytes = Self.stream(audio: audio, interval: 64, titles: titles)
        var reader = IcyReader(interval: 64)
        var gotAudio: [UInt8] = []
        var gotTitles: [String] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            let (piece, found) = bytes[offset..<end].withUnsafeBytes { reader.feed($0) }
            gotAudio += piece
            gotTitles += found
            offset = end
        }
        #expect(gotAudio == audio)
        #expect(gotTitles == titles)
    }

    @Test func noIntervalMeansAllAudio() {
        var reader = IcyReader(interval: nil)
        let bytes: [UInt8] = [1, 2, 3]
        #expect(bytes.withUnsafeBytes { reader.feed($0) }.audio == bytes)
        #expect(IcyReader(interval: 0).interval == nil && IcyReader(interval: -5).interval == nil && IcyReader(interval: 1 << 30).interval == nil)
    }

    @Test func latin1TitlesAreRead() {
        let block: [UInt8] = Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8) + [0, 0]
        #expect(IcyReader.streamTitle(block) == "Café")
    }
}
