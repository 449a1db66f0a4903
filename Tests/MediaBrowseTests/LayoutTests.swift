import Foundation
import MediaModel
import MediaEngine
import MediaFeed
import MediaTerminal
import Testing
@testable import MediaBrowse

struct LayoutTests {
    static func cells(_ count: Int) -> [(title: String, hasPicture: Bool)] {
        (0..<count).map { index in
            (index % 3 == 0 ? "A title long enough to need two lines in a narrow cell, and then more" : "Short \(index)", index % 2 == 0)
        }
    }

    @Test(arguments: [(80, 3), (40, 1), (160, 6), (20, 1), (49, 2)])
    func columnsFitTheWidth(_ size: (width: Int, columns: Int)) {
        let layout = GridLayout(width: size.width, height: 22, cells: Self.cells(10))
        #expect(layout.columns == size.columns)
        for frame in layout.frames {
            #expect(frame.x + frame.width <= size.width)
            #expect(frame.titleLines.count <= 2)
            #expect(frame.titleLines.allSatisfy { DisplayWidth.of($0) <= frame.width - 2 })
            // One height for every cell: a picture's room (some have one), two title lines, the state, the border.
            #expect(frame.height == 2 + layout.pictureRows + 2 + 1)
        }
        // Rows follow one another, a cell's height apart.
        for index in layout.frames.indices {
            #expect(layout.frames[index].y == layout.row(of: index) * layout.cellHeight)
        }
    }

    @Test func movesKeepTheColumnAndStayInside() {
        let layout = GridLayout(width: 80, height: 22, cells: Self.cells(7))
        #expect(layout.move(0, by: .down) == 3)
        #expect(layout.move(4, by: .down) == 6)  // the short last row: its last cell
        #expect(layout.move(6, by: .down) == 6)
        #expect(layout.move(1, by: .up) == 1)
        #expect(layout.move(6, by: .right) == 6)
        #expect(layout.move(0, by: .left) == 0)
        #expect(layout.move(1, by: .rows(5)) == 6)
        #expect(layout.move(5, by: .first) == 0 && layout.move(0, by: .last) == 6)
    }

    @Test func scrollingShowsTheSelectedRow() {
        let layout = GridLayout(width: 40, height: 22, cells: Self.cells(10))
        var top = 0
        for index in layout.frames.indices {
            top = layout.scrollTop(showing: index, from: top, viewHeight: 22)
            let frame = layout.frames[index]
            #expect(frame.y >= top && frame.y + frame.height <= top + 22)
            #expect(layout.visible(scrollTop: top, viewHeight: 22).contains(index))
        }
        #expect(layout.scrollTop(showing: 0, from: top, viewHeight: 22) == 0)
    }

    @Test(arguments: [(80, 24), (40, 30), (160, 40), (24, 10)])
    func everyRowIsExactlyTheScreenWide(_ size: (columns: Int, rows: Int)) {
        let items = (1...9).map { position in
            FeedItem(
                position: position, id: "i\(position)", title: position == 2 ? "宽字符的标题 with wide characters 漢字" : "Item \(position) with a title",
                kind: MediaKind(rawValue: position % 3), source: .file("/nonexistent/\(position)"),
                description: String(repeating: "Words of a description. ", count: 40)
            )
        }
        let layout = GridLayout(width: size.columns, height: size.rows - 2, cells: items.map { ($0.title, $0.kind == .image) })
        let picture = TerminalImage(columns: 4, rows: 2, lines: ["\u{1B}[31m▄▄▄▄\u{1B}[0m", "\u{1B}[32m▄▄▄▄\u{1B}[0m"])
        for mode in [BrowseSnapshot.Mode.grid, .detail, .help] {
            let snapshot = BrowseSnapshot(
                columns: size.columns, rows: size.rows, title: "A feed", items: ShownItems(base: items, places: nil), layout: layout,
                state: { _ in .downloading(0.5) }, selection: 1, scrollTop: 0, mode: mode, detailScroll: 3,
                message: nil, backendName: "test", colors: true, tick: 0, picture: { _, _, _ in .image(picture) }
            )
            let (canvas, _) = BrowseView.render(snapshot)
            #expect(canvas.plainLines.count == size.rows)
            for line in canvas.plainLines {
                #expect(DisplayWidth.of(line) == size.columns, "\(mode): \(line)")
            }
        }
    }

    @Test func detailSplitsThirtySeventyWhenWide() {
        let wide = BrowseView.detailPanes(columns: 160, rows: 40)
        #expect(wide.landscape)
        #expect(wide.picture.columns + 1 == 48 && wide.text.column == 50)
        let narrow = BrowseView.detailPanes(columns: 40, rows: 30)
        #expect(!narrow.landscape)
        #expect(narrow.text.row > narrow.picture.row + narrow.picture.rows - 1)
    }

    @Test func imageModeFromTheEnvironment() {
        #expect(ImageMode.detect(environment: ["TERM": "xterm-kitty"]) == .kitty)
        #expect(ImageMode.detect(environment: ["TERM": "foot"]) == .sixel)
        #expect(ImageMode.detect(environment: ["TERM": "xterm-256color", "TMUX": "/tmp/x"]) == .blocks)
        #expect(ImageMode.detect(environment: ["TERM": "xterm-256color"]) == .blocks)
        #expect(ImageMode.detect(environment: ["TERM": "dumb"]) == .none)
        #expect(ImageMode.detect(environment: [:]) == .none)
    }

    @Test(arguments: [ImageMode.blocks, .sixel, .kitty])
    func chafaRendersEachMode(_ mode: ImageMode) throws {
        // A red-to-blue gradient, 64 × 32 pixels.
        var pixels: [UInt8] = []
        for _ in 0..<32 { for x in 0..<64 { pixels += [UInt8(255 - x * 4), 0, UInt8(x * 4), 255] } }
        let renderer = TerminalImageRenderer(mode: mode, colors: true)
        let image = try #require(renderer.render(RGBAPicture(width: 64, height: 32, pixels: pixels), columns: 20, rows: 10))
        #expect(image.columns <= 20 && image.rows <= 10)
        switch mode {
        case .blocks:
            #expect(image.lines.count == image.rows)
            #expect(image.lines.allSatisfy { DisplayWidth.of(Canvas.stripStyles($0)) == image.columns })
            #expect(image.lines[0].contains("38;2;") || image.lines[0].contains("48;2;"), "truecolour")
        case .sixel:
            #expect(image.graphics?.hasPrefix("\u{1B}P") == true)
        case .kitty:
            #expect(image.graphics?.contains("\u{1B}_G") == true)
        case .none:
            break
        }
    }
}

/// The detail view's line of what a file says of itself.
struct MediaLineTests {
    @Test func durationTagsAndFormat() {
        let video = MediaDetails(duration: 200.7, artist: "The Artist", album: "An Album", codec: "h264", width: 1280, height: 720, sampleRate: 44100)
        #expect(video.line == "3:20 · The Artist — An Album · h264 1280×720 · 44100 Hz")
        #expect(MediaDetails(duration: 7, title: "Song", codec: "mp3").line == "0:07 · \"Song\" · mp3")
        #expect(MediaDetails().line == nil)
        let lines = BrowseView.detailText(
            FeedItem(position: 1, id: "a", title: "A", kind: .audio, source: .file("/a.mp3")), state: .local(resumeAt: 0),
            details: MediaDetails(duration: 65, artist: "X"), width: 80, tick: 0
        )
        #expect(lines[1] == "1:05 · X", "\(lines)")
        let marked = BrowseView.detailText(
            FeedItem(position: 2, id: "b", title: "B", kind: .audio, source: .file("/b.mp3")), state: .local(resumeAt: 0), mark: "✓", width: 80, tick: 0
        )
        #expect(marked[0] == "audio · item 2 · ✓ ● local", "a played item says so: \(marked)")
    }

    /// The detail view shows an episode's date and its chapters (the feed's,
    /// else the file's).
    @Test func anEpisodeShowsItsDateAndChapters() {
        var item = FeedItem(position: 4, id: "ep", title: "Episode", kind: .audio, source: .file("/ep.mp3"))
        item.published = Date(timeIntervalSince1970: 1_764_151_200)  // 2025-11-26 10:00 UTC
        item.chapters = [Chapter(start: 0, title: "Intro"), Chapter(start: 95, title: "The interview")]
        let lines = BrowseView.detailText(item, state: .local(resumeAt: 0), width: 80, tick: 0)
        #expect(lines[1] == "published " + DayText.text(item.published!), "\(lines)")
        #expect(lines.contains("Chapters:") && lines.contains("  1. 00:00  Intro") && lines.contains("  2. 01:35  The interview"), "\(lines)")
        var file = item
        file.chapters = []
        var probed = MediaDetails(duration: 100)
        probed.chapters = [Chapter(start: 0, title: "One")]
        let fromFile = BrowseView.detailText(file, state: .local(resumeAt: 0), details: probed, width: 80, tick: 0)
        #expect(fromFile.contains("  1. 00:00  One"), "the file's when the feed has none: \(fromFile)")
    }

    /// A facts-feed row without an image reads as words, not as a broken record.
    @Test func aTextOnlyItemIsNotInvalid() {
        #expect(BrowseView.stateText(.textOnly, tick: 0) == "text only")
    }
}
