import MediaFeed
import MediaModel

extension MediaSession {
    /// The one entry point of every control: the socket, the keys of `play`,
    /// a window and browse, scripts and MPRIS all come here with a
    /// `PlayerCommand` (docs/ARCHITECTURE.md, "How a command travels").
    @discardableResult
    public func perform(_ command: PlayerCommand, onProgress: (@Sendable (ItemStatus) -> Void)? = nil) async throws(CommandError) -> PlayerOutcome {
        if let outcome = try performAtOnce(command) { return outcome }
        return try await performWaiting(command, onProgress: onProgress)
    }

    /// What `performAtOnce` left to wait for: a start, a stop, a step. A
    /// front end that tried `performAtOnce` on its own thread runs this as a
    /// task (calling `perform` there would try the at-once part twice).
    @discardableResult
    public func performWaiting(_ command: PlayerCommand, onProgress: (@Sendable (ItemStatus) -> Void)? = nil) async throws(CommandError) -> PlayerOutcome {
        switch (command.definition.execution, command) {
        case (.atOnce, _):
            // Never waits: done at once here too.
            return try performAtOnce(command) ?? .item(nil)
        case let (_, .toggle(selector)):
            return .item(try await toggle(try target(selector).key, onProgress: onProgress))
        case let (_, .play(selector, start)):
            return .item(try await play(try target(selector).key, from: start, onProgress: onProgress))
        case let (_, .stop(selector)):
            let key = try selector.map { selector throws(CommandError) in try item(selector).key }
            return .item(await stop(key))
        case (_, .quit):
            return .item(await stop())
        case (_, .next):
            return .item(try await next())
        case (_, .previous):
            return .item(try await previous())
        default:
            // Declared to wait, with nothing to wait for: done at once.
            return try performAtOnce(command) ?? .item(nil)
        }
    }

    /// A command that waits for nothing (a pause or resume, a seek, the
    /// volume, speed and modes) carried out on the caller's thread, with no
    /// task; nil for one that has to start, stop or step, which only
    /// `perform` does.
    public func performAtOnce(_ command: PlayerCommand) throws(CommandError) -> PlayerOutcome? {
        switch command {
        case .toggle(nil):
            // The current item paused or resumed (space): never started
            // anew, nor a picture closed.
            let item = try target(nil)
            togglePause(item.key)
            return .item(status(of: item.key))
        case let .toggle(selector?):
            return try toggleAtOnce(try item(selector).key).map { .item($0) }
        case let .play(selector, start):
            let item = try target(selector)
            guard start == nil, status(of: item.key)?.state == .paused else { return nil }
            resume(item.key)
            return .item(status(of: item.key))
        case .pause:
            guard let current = currentStatus() else { return .item(nil) }
            pause(current.id)
            return .item(status(of: current.id))
        case let .seek(seek, selector):
            let item = try target(selector, "to seek in")
            switch seek {
            case let .to(seconds): try self.seek(item.key, to: seconds)
            case let .by(seconds): try self.seek(item.key, by: seconds)
            case let .percent(share):
                guard let duration = status(of: item.key)?.duration else {
                    throw CommandError(.badRequest, "item \(item.position) has no known length to seek \(share)% into")
                }
                try self.seek(item.key, to: duration * share / 100)
            }
            return .item(status(of: item.key))
        case .volume, .mute, .speed, .loudness:
            return .audio(changeAudioSettings { $0 = $0.applying(command) ?? $0 })
        case .setRepeat, .shuffle, .autoplay:
            let now = playlistMode
            guard let wanted = now.applying(command) else { return nil }
            // Only what changed is set (shuffle on again would draw a new order).
            return .playlist(setPlaylist(
                autoplay: wanted.autoplay != now.autoplay ? wanted.autoplay : nil, repeat: wanted.repeat != now.repeat ? wanted.repeat : nil,
                shuffle: wanted.shuffle != now.shuffle ? wanted.shuffle : nil
            ))
        case let .sleep(timer):
            return .sleep(setSleep(timer))
        case let .chapter(step):
            let (key, seconds) = try chapterTarget(step)
            try self.seek(key, to: seconds)
            return .item(status(of: key))
        case .subtitle, .audioTrack, .subtitleDelay:
            return .item(try changeTracks(command))
        case .stop, .quit, .next, .previous:
            // Declared to wait for a stop or a start (`definition`).
            return nil
        }
    }

    /// The item a command names, else the current one.
    private func target(_ selector: ItemSelector?, _ purpose: String = "") throws(CommandError) -> FeedItem {
        if let selector { return try item(selector) }
        guard let current = currentStatus(), let found = item(for: current.id) else {
            throw CommandError(.badRequest, "nothing is playing or paused\(purpose.isEmpty ? "" : " " + purpose) (name an item)")
        }
        return found
    }
}
