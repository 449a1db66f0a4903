import MediaModel
import MediaTerminal
import Testing

/// Numbers from outside become integers and times without a trap.
@Suite struct CheckedNumberTests {
    static let hostile: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 1.7e308, 9.3e15, 9_223_372_036_854.776, -0.0, 0, 1, 59.999]

    @Test func microsecondsAlwaysFit() {
        for value in Self.hostile {
            let micro = CheckedNumber.microseconds(value)
            #expect(micro >= 0 && micro <= Int64(CheckedNumber.longestTime * 1e6), "\(value)")
        }
        #expect(CheckedNumber.microseconds(1.5) == 1_500_000)
    }

    @Test func durationsBeyondAYearAreUnknown() {
        #expect(CheckedNumber.duration(9_223_372_036_854.776) == nil, "2^63 µs, a Matroska file's garbage")
        #expect(CheckedNumber.duration(.nan) == nil && CheckedNumber.duration(.infinity) == nil && CheckedNumber.duration(0) == nil)
        #expect(CheckedNumber.duration(3600) == 3600)
    }

    @Test func positionsStayInTheItem() {
        #expect(CheckedNumber.position(1e300, within: 200) == 200)
        #expect(CheckedNumber.position(1e300) == CheckedNumber.longestTime)
        #expect(CheckedNumber.position(.nan) == 0 && CheckedNumber.position(-5) == 0)
        #expect(CheckedNumber.position(.infinity, within: .nan) == CheckedNumber.longestTime)
    }

    @Test func clampedIntegers() {
        #expect(CheckedNumber.clamped(Int64.min, to: -150...150) == -150)
        #expect(CheckedNumber.clamped(UInt64.max, to: -150...150) == 150)
        #expect(CheckedNumber.clamped(.nan, to: 0...150) == 0 && CheckedNumber.clamped(1e300, to: 0...150) == 150)
        #expect(CheckedNumber.int(.nan) == nil && CheckedNumber.int(1e19) == nil && CheckedNumber.int(-3.7) == -3)
    }

    /// What a client prints of a status a peer sent: never a trap.
    @Test func textOfHostileNumbers() {
        for value in Self.hostile {
            _ = StatusText.clock(value)
            _ = formatDuration(value)
            _ = SpeedText.text(value)
            let line = StatusText.line(ItemStatus(item: 1, id: ItemKey("k"), title: "t", kind: .audio, state: .buffering, position: value, duration: value, progress: value))
            #expect(!line.isEmpty)
        }
        #expect(StatusText.clock(1e300) == "8784:00:00", "a year, the longest time kept")
        #expect(Percent.text(.nan) == "0%" && Percent.text(0.426) == "42%" && Percent.text(1e9) == "100%")
    }

    /// Direction marks from a feed are shown, never obeyed: in a table
    /// cell, on the browse canvas, and stripped for MPRIS.
    @Test func directionMarksAreMadeVisible() {
        #expect(DisplayWidth.singleLine("abc\u{202E}def") == #"abc\u{202E}def"#)
        #expect(DisplayWidth.plainText("a\u{1B}]52;c;eA==\u{7}b\u{202E}c\nd") == "a]52;c;eA==bc d")
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("x\u{2067}y", column: 0, row: 0)
        #expect(!canvas.plainLines.joined().contains("\u{2067}"))
    }
}
