import CFFmpeg
import Foundation
import MediaModel

/// An audio stream of the open file, as a track.
struct AudioTrackStream {
    let streamIndex: Int32
    let track: MediaTrack
}

/// Tracks: the audio stream that plays, and the subtitles — chosen at open
/// by `PlaybackOptions.tracks`, changed while playing by the track
/// commands. A subtitle track is read whole by its loader into a timeline
/// (the text shown in a terminal, `status` and scripts) and drawn into the
/// picture of a window or recording by libass (`SubtitleBurner`).
extension Player {
    /// The tracks and the ones chosen, once the file is open.
    public var trackStatus: TrackStatus? {
        condition.withLock { info == nil ? nil : trackStatusLocked() }
    }

    /// The subtitle text at the position now (nil: none shows).
    public var currentSubtitle: String? {
        guard let (shown, position) = condition.withLock({ shownTimelineLocked.map { ($0, currentPositionLocked()) } }) else { return nil }
        // In virtual time the answer is exact: the track is read that far
        // first. By the clock nothing waits: cues read later are announced
        // as they come (`PlayerEvent.subtitle`).
        if options.clock != .realTime { shown.timeline.waitUntilLoaded(position - shown.delay) }
        return shown.timeline.text(at: position - shown.delay)
    }

    /// Carries out a track command; the tracks as they stand after it. Throws
    /// a one-line reason when there is no such track.
    public func changeTracks(_ command: PlayerCommand) throws(CommandError) -> TrackStatus {
        let outcome = condition.withLock { () -> Result<(TrackStatus, Double?), CommandError> in
            do throws(CommandError) {
                let switchAt = try changeTracksLocked(command)
                return .success((trackStatusLocked(), switchAt))
            } catch {
                return .failure(error)
            }
        }
        let (status, switchAt) = try outcome.get()
        // Another audio track: the sound goes on from where it stands, in
        // the new language, now (a script's next wait plays the new track).
        if let switchAt { seek(to: switchAt, soundWaitsForPicture: false) }
        return status
    }

    /// Where another audio track takes over, when the command switched it.
    private func changeTracksLocked(_ command: PlayerCommand) throws(CommandError) -> Double? {
        guard info != nil else { throw CommandError(.badRequest, "the item is not open yet") }
        switch command {
        case let .subtitle(step):
            // No track to show is a track the item does not have (66, as the help says).
            guard !subtitleSources.isEmpty else { throw CommandError(.noSuchItem, "the current item has no subtitles") }
            switch step {
            case .next:
                // mpv's cycle: each track, then none, then the first again.
                if !subtitlesVisible || subtitleIndex == nil {
                    chooseSubtitleLocked(0)
                } else if let index = subtitleIndex, index + 1 < subtitleSources.count {
                    chooseSubtitleLocked(index + 1)
                } else {
                    chooseSubtitleLocked(nil)
                }
            case .on: chooseSubtitleLocked(subtitleIndex ?? 0)
            case .off: setSubtitlesVisibleLocked(false)
            case .toggle:
                if subtitlesVisible && subtitleIndex != nil { setSubtitlesVisibleLocked(false) } else { chooseSubtitleLocked(subtitleIndex ?? 0) }
            case let .number(number):
                guard let index = subtitleSources.firstIndex(where: { $0.track.number == number }) else {
                    throw CommandError(.noSuchItem, "no subtitle track \(number): the item has \(subtitleSources.count) (1–\(subtitleSources.count))")
                }
                chooseSubtitleLocked(index)
            }
        case let .audioTrack(step):
            guard audioTracks.count > 1 || (step != .next && !audioTracks.isEmpty) else {
                throw CommandError(.noSuchItem, audioTracks.isEmpty ? "the current item has no sound" : "the current item has one audio track: no other to switch to")
            }
            let index: Int
            switch step {
            case .next: index = ((audioTrackIndex ?? -1) + 1) % audioTracks.count
            case let .number(number):
                guard let found = audioTracks.firstIndex(where: { $0.track.number == number }) else {
                    throw CommandError(.noSuchItem, "no audio track \(number): the item has \(audioTracks.count) (1–\(audioTracks.count))")
                }
                index = found
            }
            guard index != audioTrackIndex, audioActive else { return nil }
            audioTrackIndex = index
            pendingAudioSwitch = audioTracks[index].streamIndex
            condition.broadcast()
            return trackSwitchPositionLocked
        case let .subtitleDelay(delay):
            let value: Double
            switch delay {
            case let .to(seconds): value = seconds
            case let .by(seconds): value = ((trackSettings.subtitleDelay + seconds) * 1000).rounded() / 1000
            }
            trackSettings.subtitleDelay = min(max(value, TrackSettings.delayRange.lowerBound), TrackSettings.delayRange.upperBound)
            subtitleGeneration += 1
            refreshSubtitleLocked(at: currentPositionLocked())
        default:
            break
        }
        return nil
    }

    // MARK: - At open (reader thread)

    /// Lists the file's tracks and those beside it, and chooses the ones to play.
    func openTracks(_ demuxer: Demuxer) {
        let audio = demuxer.audioStreams.enumerated().map { number, stream in
            AudioTrackStream(streamIndex: stream.index, track: MediaTrack(kind: .audio, number: number + 1, language: stream.language, title: stream.title, codec: stream.codec))
        }
        // The file's own subtitles are read from the file again: a file, not a download in progress.
        var subtitles = source == nil && stream == nil ? SubtitleStreams.list(demuxer.context, path: path, offset: demuxer.startTime, first: 1, file: nil) : []
        for file in options.subtitleFiles {
            // A sidecar that cannot be read is left out (the rest play), and said.
            do {
                subtitles += try SubtitleStreams.file(file.path, first: subtitles.count + 1, language: file.language)
            } catch {
                condition.withLock { subtitleFileFailure = subtitleFileFailure ?? error.description }
            }
        }
        let settings = condition.withLock { trackSettings }
        let best = demuxer.audioStreamIndex.flatMap { best in audio.firstIndex { $0.streamIndex == best } }
        let audioChoice = TrackChoice.choose(settings.audio, languages: settings.audioLanguages, among: audio.map(\.track), defaultIndex: best) ?? best
        let subtitleChoice = TrackChoice.choose(settings.subtitle, languages: settings.subtitleLanguages, among: subtitles.map(\.track))
        condition.withLock {
            audioTracks = audio
            audioTrackIndex = audioChoice
            currentAudioStream = audioChoice.map { audio[$0].streamIndex } ?? demuxer.audioStreamIndex
            subtitleSources = subtitles
            subtitlesVisible = settings.subtitle != .off
            if let subtitleChoice { chooseSubtitleLocked(subtitleChoice) } else { subtitleIndex = nil }
        }
    }

    // MARK: - With `condition` held

    func trackStatusLocked() -> TrackStatus {
        TrackStatus(
            audio: audioTracks.map(\.track), subtitles: subtitleSources.map(\.track),
            audioTrack: audioTrackIndex.map { audioTracks[$0].track.number },
            subtitleTrack: subtitlesVisible ? subtitleIndex.map { subtitleSources[$0].track.number } : nil,
            subtitleDelay: trackSettings.subtitleDelay,
            subtitleError: (subtitlesVisible ? subtitleTimeline?.failure : nil) ?? subtitleFileFailure
        )
    }

    /// Shows track `index` (nil: none), reading it anew.
    private func chooseSubtitleLocked(_ index: Int?) {
        subtitleGeneration += 1
        let generation = subtitleGeneration
        subtitleIndex = index
        subtitlesVisible = index != nil
        // A window or recording draws a text track with libass, filled as the track is read.
        let burns = videoSink.map { !$0.drawsSubtitleText } ?? false
        subtitleAss = index.flatMap { burns && !subtitleSources[$0].track.isBitmap ? try? AssTrack() : nil }
        subtitleTimeline = index.map { [subtitleAss] index in
            SubtitleLoader.start(subtitleSources[index], ass: subtitleAss) { [weak self] in
                guard let self else { return true }
                // Not `stopRequested`: it is set once the file is read to
                // its end, while a device still plays out what it holds.
                return self.condition.withLock { self.state.isFinal || self.subtitleGeneration != generation }
            } onChange: { [weak self] in
                // Cues read after the track was chosen: what shows now is announced.
                guard let self else { return }
                self.condition.withLock {
                    guard self.subtitleGeneration == generation, !self.state.isFinal else { return }
                    self.refreshSubtitleLocked(at: self.currentPositionLocked())
                    // A track refused: the front ends show why (the tracks line).
                    if self.subtitleTimeline?.failure != nil { self.publish(.subtitle(self.shownSubtitle)) }
                }
            }
        }
        refreshSubtitleLocked(at: currentPositionLocked())
    }

    private func setSubtitlesVisibleLocked(_ visible: Bool) {
        subtitlesVisible = visible
        subtitleGeneration += 1
        refreshSubtitleLocked(at: currentPositionLocked())
    }

    /// The subtitle track drawn into pictures now, if any: shown, and text.
    var burnedSubtitleLocked: BurnedSubtitle? {
        guard subtitlesVisible, let index = subtitleIndex else { return nil }
        return BurnedSubtitle(source: subtitleSources[index], delay: trackSettings.subtitleDelay, ass: subtitleAss, timeline: subtitleTimeline)
    }

    /// The timeline of the track shown, and the delay, if one shows.
    var shownTimelineLocked: (timeline: SubtitleTimeline, delay: Double)? {
        guard subtitlesVisible, let timeline = subtitleTimeline else { return nil }
        return (timeline, trackSettings.subtitleDelay)
    }

    func subtitleTextLocked(at position: Double) -> String? {
        shownTimelineLocked.flatMap { $0.timeline.text(at: position - $0.delay) }
    }

    /// Announces the subtitle at `position` if it is not the one last announced.
    func refreshSubtitleLocked(at position: Double) {
        let text = subtitleTextLocked(at: position)
        guard text != shownSubtitle else { return }
        shownSubtitle = text
        publish(.subtitle(text))
    }

    /// Where another audio track takes over: what a device has played, or
    /// for a recording exactly the samples written (nothing lost or repeated).
    private var trackSwitchPositionLocked: Double {
        guard audioActive, audioSink?.playedSeconds == nil, !state.isFinal else { return currentPositionLocked() }
        return audioPosition
    }

    /// The audio decoder a track switch left for the audio thread.
    func takeAudioDecoderSwap() -> Decoder? {
        condition.withLock {
            defer { audioDecoderSwap = nil }
            return audioDecoderSwap
        }
    }
}

/// The subtitle track drawn into pictures, as the video decoder thread sees it.
struct BurnedSubtitle {
    let source: SubtitleSource
    let delay: Double
    /// libass's copy of a text track (nil: libass could not be loaded).
    let ass: AssTrack?
    let timeline: SubtitleTimeline?
}
