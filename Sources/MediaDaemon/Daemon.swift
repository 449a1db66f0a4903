import Foundation
import Synchronization
import MediaFeed
import MediaModel
import Logging
import MediaControl
import MediaSession

/// Why the daemon cannot take its runtime directory.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case alreadyRunning, unusableDirectory }
    public let kind: Kind
    public let message: String
    public var description: String { message }
}

/// The background player's process: owns the runtime directory (one daemon
/// per directory, held by a lock), serves the socket, and on `quit`, SIGTERM
/// or SIGINT stops playback, saves positions and removes the socket.
public final class Daemon: @unchecked Sendable {
    public let paths: ControlPaths
    private let logger: Logger
    private var lockDescriptor: Int32 = -1
    private let quitRequests = AsyncStream<Void>.makeStream()
    private var signalWatch: ProcessSignals.Watch?
    /// The socket's timers (idle clients, heartbeats, expiry) and the
    /// saving of positions run on it.
    private let clock: any MediaClock

    public init(paths: ControlPaths, logger: Logger, clock: any MediaClock = SystemClock.shared) {
        self.paths = paths
        self.logger = logger
        self.clock = clock
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Takes the runtime directory: creates it (0700) or checks that it is
    /// ours and private, then takes its lock, or keeps `heldLock`, the lock
    /// the client that started this daemon took for it (`DaemonLauncher`).
    /// Never waits: a lock another process holds means another player runs
    /// or starts here, and this one must not stay to take over after it.
    public func claim(heldLock: Int32? = nil) throws(DaemonError) {
        try Self.prepareDirectory(paths.runtimeDirectory)
        let descriptor: Int32
        if let heldLock {
            guard RuntimeLock.isLock(heldLock, of: paths) else {
                throw DaemonError(kind: .unusableDirectory, message: "descriptor \(heldLock) is not \(paths.lock) (--lock-fd is for the client that starts the daemon; leave it out)")
            }
            descriptor = heldLock
            // Ours from here on; no program this daemon starts inherits it.
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        } else {
            do {
                descriptor = try RuntimeLock.open(paths)
            } catch {
                throw DaemonError(kind: .unusableDirectory, message: error.message)
            }
        }
        // A handed lock is taken again on the same open file: that succeeds
        // only when it really is held for us.
        guard RuntimeLock.take(descriptor) else {
            let holder = (try? String(contentsOfFile: paths.lock, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw DaemonError(
                kind: .alreadyRunning,
                message: "a background player already runs for \(paths.runtimeDirectory)\(holder.map { $0.isEmpty ? "" : " (pid \($0))" } ?? "") (stop it with 'mediaplay quit')"
            )
        }
        RuntimeLock.record(getpid(), in: descriptor)
        lockDescriptor = descriptor
    }

    static func prepareDirectory(_ path: String) throws(DaemonError) {
        if let problem = OwnFolder.prepare(path, privateOnly: true) {
            throw DaemonError(kind: .unusableDirectory, message: "refusing the runtime directory \(path): \(problem) (remove it, or pass --runtime-dir DIR)")
        }
    }

    /// Serves until told to quit (by `quit`, or with `handleSignals` by
    /// SIGTERM and SIGINT). The lock must be held (`claim`).
    public func serve(
        session: MediaSession, feed: String, version: String, saveInterval: Double, handleSignals: Bool = true,
        followFeed: @escaping @Sendable () -> Void = {}, displayProblem: @escaping @Sendable () -> String? = { nil }, details: @escaping @Sendable (FeedItem) -> MediaDetails? = { _ in nil },
        probe: @escaping @Sendable ([FeedItem]) -> [MediaDetails?] = { $0.map { _ in nil } }
    ) async throws(SocketError) {
        precondition(lockDescriptor >= 0, "claim() first")
        let listener: UnixSocket
        if let inherited = try UnixSocket.inheritedListener(at: paths.socket) {
            // Socket activation: systemd made the socket, keeps it, and
            // starts us again on the next client after we quit.
            listener = inherited
        } else {
            // We hold the lock, so a socket that answers is no daemon's:
            // systemd's (mediaplay.socket), which must not lose its path.
            if (try? UnixSocket.connected(to: paths.socket)) != nil {
                throw SocketError("something already listens at \(paths.socket) (systemd's mediaplay.socket?): start the player through it (systemctl --user start mediaplay.service) or stop the socket unit first", code: EADDRINUSE)
            }
            // A socket file nobody answers at belongs to a daemon that died: replace it.
            if unlink(paths.socket) == 0 { logger.info("replaced a stale socket at \(paths.socket)") }
            unlink(paths.socketBeingBound)
            listener = try UnixSocket.listening(at: paths.socket, boundFirstAt: paths.socketBeingBound)
        }
        // Unreachable, it must not play on: a client would start a second
        // player. Watched before any client is answered (one that saw the
        // socket could remove the folder at once); a removal before the
        // watch began is found by looking once it has.
        let logger = self.logger
        let watch = FolderWatch(folder: paths.runtimeDirectory, socketName: (paths.socket as NSString).lastPathComponent) { [quitRequests, logger] reason in
            logger.warning("quitting: \(reason), so no client can reach this player")
            quitRequests.continuation.yield()
        }
        if access(paths.socket, F_OK) != 0 {
            logger.warning("quitting: the runtime folder or its socket was removed as the player started, so no client can reach it")
            quitRequests.continuation.yield()
        }
        let ended = Ending()
        let service = ControlService(
            session: session, feed: feed, version: version, clock: clock, followFeed: followFeed, displayProblem: displayProblem, details: details,
            probe: probe
        ) { [quitRequests] in
            quitRequests.continuation.yield()
            await ended.wait()
        }
        let server = ControlServer(listener: listener, clock: clock, log: { logger.warning("\($0)") }) { piece, connection in
            service.answer(piece, on: connection)
        }
        server.start()
        if handleSignals { quitOnSignals() }
        logger.info("listening on \(paths.socket)\(listener.isInherited ? " (passed by systemd)" : "") (pid \(getpid()), feed \(feed))")

        let saver = Task.detached { [clock] in await Self.savePositions(of: session, every: saveInterval, on: clock) }
        for await _ in quitRequests.stream { break }
        watch?.stop()

        logger.info("quitting: saving positions")
        saver.cancel()
        // No new client from here on; those connected get their replies.
        // (systemd's socket stays: the next client starts a new player.)
        if !listener.isInherited { unlink(paths.socket) }
        listener.shutdown()
        await session.shutdown()
        // Playback has stopped and positions are saved: `quit` is answered.
        ended.signal()
        await server.stop()
        // Last: a new daemon may take the directory from here on.
        RuntimeLock.release(lockDescriptor)
        lockDescriptor = -1
        logger.info("stopped")
    }

    /// Ends `serve` as the `quit` request does.
    public func quit() {
        quitRequests.continuation.yield()
    }

    /// SIGTERM and SIGINT end the daemon the way `quit` does; SIGHUP (a
    /// closed terminal, for a daemon run by hand) is logged and ignored.
    private func quitOnSignals() {
        signalWatch = ProcessSignals.shared.watch([SIGTERM, SIGINT, SIGHUP]) { [quitRequests, logger] signalNumber in
            logger.info("signal \(signalNumber)")
            if signalNumber != SIGHUP { quitRequests.continuation.yield() }
        }
    }

    /// Saves the playing item's position every `interval` seconds while
    /// something plays, so a crash loses at most that much; a paused or idle
    /// daemon waits for the next event and does nothing.
    private static func savePositions(of session: MediaSession, every interval: Double, on clock: any MediaClock) async {
        for await event in session.events() where event.status.state == .playing {
            while session.currentStatus()?.state == .playing {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return
                }
                // The session writes to SQLite on a queue of its own.
                session.savePositions()
            }
        }
    }
}

/// Signalled once the daemon has stopped its playback: `quit`'s reply
/// waits for it.
final class Ending: Sendable {
    private let state = Mutex<(done: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if !state.done { state.waiting.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    func signal() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
