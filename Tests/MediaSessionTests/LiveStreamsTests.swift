@testable import MediaSession
import MediaModel
import Testing

/// Live-stream titles alone: kept only for items playing a live stream; a
/// new title ends the notice about the one before.
@Suite struct LiveStreamsTests {
    @Test func titlesAndNoticesOfLiveItemsOnly() {
        var streams = LiveStreams()
        let notLive = streams.title("Song", for: "radio")
        #expect(!notLive, "not started live: a stream left behind changes nothing")
        streams.started("radio", live: true)
        #expect(streams.isLive("radio") && streams.info("radio") == LiveStreams.Info())
        let noticed = streams.notice("reconnecting", for: "radio")
        #expect(noticed)
        let titled = streams.title("Song", for: "radio")
        #expect(titled)
        #expect(streams.info("radio") == LiveStreams.Info(title: "Song", notice: nil), "the notice was about the title before")
        let lost = streams.notice("stream lost", for: "radio")
        #expect(lost)
        let over = streams.notice(nil, for: "radio")
        #expect(over)
        #expect(streams.info("radio") == LiveStreams.Info(title: "Song"))
        streams.started("radio", live: false)
        #expect(!streams.isLive("radio") && streams.info("radio") == nil, "played from a file now")
        let late = streams.notice("late", for: "radio")
        #expect(!late)
    }
}
