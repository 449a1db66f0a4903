import Foundation
import MediaFeed
import MediaControl
import MediaSession

/// Answers protocol requests from a session: the daemon's request handler.
public final class ControlService: Sendable {
    public let session: MediaSession
    /// The feed the session plays, as clients name it.
    public let feed: String
    public let version: String
    private let onQuit: @Sendable () -> Void

    public init(session: MediaSession, feed: String, version: String, onQuit: @escaping @Sendable () -> Void) {
        self.session = session
        self.feed = feed
        self.version = version
        self.onQuit = onQuit
    }

    /// One reply line for one request line.
    public func answer(_ piece: LineSplitter.Piece, on connection: ControlConnection) async -> [UInt8] {
        guard case let .line(bytes) = piece else {
            return ControlJSON.line(ControlReply<EmptyResult>.failure(nil, ControlError(.lineTooLong, "request longer than \(maximumRequestLength) bytes")))
        }
        let request: ControlRequest
        switch ControlRequest.decode(line: bytes) {
        case let .success(decoded):
            request = decoded
        case let .failure(bad):
            return ControlJSON.line(ControlReply<EmptyResult>.failure(bad.id, ControlError(.badRequest, bad.message)))
        }
        do {
            return try await perform(request, on: connection)
        } catch {
            return ControlJSON.line(ControlReply<EmptyResult>.failure(request.id, error))
        }
    }

    private func perform(_ request: ControlRequest, on connection: ControlConnection) async throws(ControlError) -> [UInt8] {
        guard let command = ControlRequest.Command(rawValue: request.cmd) else {
            let known = ControlRequest.Command.allCases.map(\.rawValue).joined(separator: ", ")
            throw ControlError(.unknownCommand, "unknown command \"\(request.cmd)\" (known: \(known))")
        }
        if let wanted = request.feed, wanted != feed {
            throw ControlError(.wrongFeed, "the background player plays the feed \(feed), not \(wanted) (run 'mediaplay quit' first to switch feeds)")
        }
        let id = request.id
        switch command {
        case .toggle:
            let item = try item(request)
            if request.wait == false && !session.isCached(item) && item.isValid {
                // Reply now; the download and the start go on without the client.
                Task { [session] in _ = try? await session.toggle(item) }
                var status = session.status(of: item)
                status.state = .downloading
                return ControlJSON.line(ControlReply.success(id, status))
            }
            do {
                let status = try await session.toggle(item) { progress in
                    connection.send(ControlJSON.line(ControlEvent(.progress, progress)))
                }
                return ControlJSON.line(ControlReply.success(id, status))
            } catch {
                throw ControlError(error)
            }
        case .status:
            if request.item != nil {
                return ControlJSON.line(ControlReply.success(id, session.status(of: try item(request))))
            }
            return ControlJSON.line(ControlReply.success(id, daemonStatus()))
        case .seek:
            let item = try item(request)
            guard let seconds = request.seconds, seconds.isFinite else {
                throw ControlError(.badRequest, "seek needs \"seconds\", a number")
            }
            do {
                try session.seek(item, to: seconds)
            } catch {
                throw ControlError(error)
            }
            return ControlJSON.line(ControlReply.success(id, session.status(of: item)))
        case .stop:
            let stopped = await session.stop()
            return ControlJSON.line(ControlReply.success(id, StopResult(stopped: stopped.map(session.status(of:)))))
        case .observe:
            connection.markObserving()
            let events = session.events()
            let forward = Task {
                var last: ItemStatus?
                for await status in events {
                    let kind: ControlEvent.Kind
                    if status.state == .downloading {
                        kind = .progress
                    } else if last?.item == status.item && last?.state == status.state {
                        kind = .position
                    } else {
                        kind = .state
                    }
                    last = status
                    connection.send(ControlJSON.line(ControlEvent(kind, status)))
                }
            }
            connection.whenFinished { forward.cancel() }
            return ControlJSON.line(ControlReply.success(id, daemonStatus()))
        case .quit:
            onQuit()
            return ControlJSON.line(ControlReply.success(id, EmptyResult()))
        }
    }

    private func item(_ request: ControlRequest) throws(ControlError) -> FeedItem {
        guard let selector = request.item else {
            throw ControlError(.badRequest, "\(request.cmd) needs \"item\": a number from 'mediaplay list' or an id")
        }
        do {
            return try session.item(selector.description)
        } catch {
            throw ControlError(error)
        }
    }

    private func daemonStatus() -> DaemonStatus {
        DaemonStatus(
            current: session.currentStatus(),
            items: session.allStatuses().filter { $0.state != .idle },
            feed: feed,
            pid: getpid(),
            version: version
        )
    }
}

extension ControlError {
    /// The session's errors carry the protocol's codes already.
    init(_ error: SessionError) {
        self.init(Code(rawValue: error.code.rawValue) ?? .badRequest, error.message)
    }
}
