import MediaInterfaces
import MediaModel

/// Work the session starts by itself (autoplay's next item, a window's key),
/// counted by `BackgroundWork` so that `settle()` can wait for it, and the
/// commands nobody waits for.
extension MediaSession {
    /// Runs `work` as a task of its own, counted until it ends.
    func background(_ work: @escaping @Sendable () async -> Void) {
        lock.withLock { backgroundWork.begin() }
        Task { [weak self] in
            await work()
            guard let self else { return }
            self.lock.withLock { self.backgroundWork.end() }.resume()
        }
    }

    /// Returns once the work the session started by itself has finished:
    /// a test's deterministic drain ("nothing more starts"), instead of
    /// sleeping and hoping.
    public func settle() async {
        await parked { backgroundWork.settle($0) }
    }

    /// A command from a front end that waits for no reply (a key): at once on
    /// the caller's thread when it waits for nothing, else as counted
    /// background work (`settle`). What it did, or why it was refused
    /// (nothing to seek in), goes to `keyFeedback`'s listeners (`play`
    /// shows it); a refusal is never tried a second time.
    public func performDetached(_ command: PlayerCommand) {
        do {
            if try performAtOnce(command) != nil { return keyFeedbackSubscribers.send(.done(command)) }
        } catch {
            return keyFeedbackSubscribers.send(.refused(command, error))
        }
        background { [weak self] in
            do throws(CommandError) {
                _ = try await self?.performWaiting(command)
                self?.keyFeedbackSubscribers.send(.done(command))
            } catch {
                self?.keyFeedbackSubscribers.send(.refused(command, error))
            }
        }
    }

    /// What each key's command did, as it happens (a window's keys and
    /// `play`'s): `play` says it on its status line and in its window's title.
    public func keyFeedback() -> AsyncStream<KeyFeedback> {
        keyFeedbackSubscribers.subscribe()
    }

    /// A window's keys and its close button, as commands on its item.
    func windowInput(_ input: VideoWindowInput, for key: ItemKey, from player: any PlayerHandle) {
        guard lock.withLock({ players[key] === player }) else { return }
        guard case let .key(pressed) = input, let command = keymap.command(for: pressed) else {
            if input == .closed { _ = requestStop(key) }
            return
        }
        // The window's own item is what its keys act on.
        let item = ItemSelector.id(key.rawValue)
        switch command {
        case .quit: _ = requestStop(key)
        case .toggle(nil): togglePause(key)
        case let .seek(seek, nil): performDetached(.seek(seek, item))
        case .stop(nil): performDetached(.stop(item))
        case let .play(nil, start): performDetached(.play(item, from: start))
        default: performDetached(command)
        }
    }
}

/// What a key's command did: done (its effect is read from the session's
/// state, `OnScreenText`), or refused, with why.
public enum KeyFeedback: Sendable, Equatable {
    case done(PlayerCommand)
    case refused(PlayerCommand, CommandError)
}
