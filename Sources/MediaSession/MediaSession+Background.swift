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
    /// background work (`settle`). A refusal (nothing to seek in) is dropped:
    /// there is no one to tell, and it is never tried a second time.
    public func performDetached(_ command: PlayerCommand) {
        do {
            if try performAtOnce(command) != nil { return }
        } catch {
            return
        }
        background { [weak self] in _ = try? await self?.performWaiting(command) }
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
