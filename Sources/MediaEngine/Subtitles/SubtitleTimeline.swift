import Foundation

/// One subtitle: shown from `start` to `end` (media seconds); `text` nil
/// for a subtitle drawn as a picture (PGS, DVB, VobSub).
public struct SubtitleCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String?

    public init(start: Double, end: Double, text: String?) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// The cues of one subtitle track, filled by its loader as it reads ahead
/// of playback, asked for the text at a time by the presenter, `status`
/// and scripts. Lookups are a binary search: a film's thousand cues cost
/// nothing per frame.
public final class SubtitleTimeline: @unchecked Sendable {
    private let condition = NSCondition()
    /// By start.
    private var cues: [SubtitleCue] = []
    /// The longest a cue lasts (how far back a lookup has to look).
    private var longest: Double = 0
    /// Every cue starting before this is known.
    private var loadedUntil = -Double.infinity
    private var complete = false
    private var failureText: String?
    /// Told (outside the lock) when cues come or reading ends: a player
    /// looks again at what shows now.
    private let onChange: (@Sendable () -> Void)?

    public init(onChange: (@Sendable () -> Void)? = nil) {
        self.onChange = onChange
    }

    /// A cue read. A cue whose end is open (a bitmap subtitle shown until
    /// the next) ends where the next one starts.
    func add(_ cue: SubtitleCue) {
        condition.withLock {
            var cue = cue
            if cue.end <= cue.start { cue.end = .infinity }
            // Open cues before this one end here.
            var index = cues.count - 1
            while index >= 0, cues[index].end == .infinity, cues[index].start <= cue.start {
                cues[index].end = cue.start
                longest = max(longest, cues[index].end - cues[index].start)
                index -= 1
            }
            // Almost always in order: appended; otherwise put in its place.
            if let last = cues.last, last.start > cue.start {
                var low = 0, high = cues.count
                while low < high {
                    let middle = (low + high) / 2
                    if cues[middle].start <= cue.start { low = middle + 1 } else { high = middle }
                }
                cues.insert(cue, at: low)
            } else {
                cues.append(cue)
            }
            if cue.end.isFinite { longest = max(longest, cue.end - cue.start) }
            loadedUntil = max(loadedUntil, cue.start)
            condition.broadcast()
        }
        onChange?()
    }

    /// Everything up to `seconds` has been read (a packet of another time came).
    func reached(_ seconds: Double) {
        condition.withLock {
            loadedUntil = max(loadedUntil, seconds)
            condition.broadcast()
        }
    }

    func finish(failure: String? = nil) {
        condition.withLock {
            complete = true
            failureText = failure
            condition.broadcast()
        }
        onChange?()
    }

    /// Lets go of every cue (a track refused past its limits).
    func discard() {
        condition.withLock {
            cues = []
            longest = 0
        }
    }

    /// Why the track could not be read, if it could not.
    public var failure: String? { condition.withLock { failureText } }

    /// Blocks until the cues that start by `seconds` are known (a recording,
    /// or virtual time, where nothing may be missed): a cue read at `seconds`
    /// does not say the next one does not start there too, so the reading
    /// must have passed `seconds` or ended.
    public func waitUntilLoaded(_ seconds: Double) {
        condition.withLock {
            while !complete && loadedUntil <= seconds { condition.wait() }
        }
    }

    /// The cues showing at `seconds`, in order of start.
    public func cues(at seconds: Double) -> [SubtitleCue] {
        condition.withLock { cuesLocked(at: seconds) }
    }

    /// The text showing at `seconds`, its cues' lines one after another;
    /// nil when none shows (or only pictures do).
    public func text(at seconds: Double) -> String? {
        let lines = cues(at: seconds).compactMap(\.text).filter { !$0.isEmpty }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// All cues known so far (tests, the benchmark).
    public var allCues: [SubtitleCue] { condition.withLock { cues } }

    private func cuesLocked(at seconds: Double) -> [SubtitleCue] {
        // The first cue that starts after `seconds`.
        var low = 0, high = cues.count
        while low < high {
            let middle = (low + high) / 2
            if cues[middle].start <= seconds { low = middle + 1 } else { high = middle }
        }
        var showing: [SubtitleCue] = []
        var index = low - 1
        while index >= 0 {
            let cue = cues[index]
            // Nothing earlier can reach this far.
            if cue.start < seconds - longest && cue.end.isFinite { break }
            if cue.end > seconds { showing.append(cue) }
            index -= 1
        }
        return showing.reversed()
    }
}
