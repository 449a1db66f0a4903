import Foundation
import MediaFeed
import MediaModel

/// Runs a script against a session, writing a JSON-lines transcript: one
/// object per step with its line, the step's text, whether it held, and the
/// item's status after it.
public struct ScriptRunner: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// One transcript line.
    struct Entry: Encodable {
        let line: Int
        let step: String
        let ok: Bool
        let status: ItemStatus?
        let statuses: [ItemStatus]?
        let error: String?
    }

    let session: MediaSession
    let virtualClock: Bool
    /// Real time (the steps' waits without the virtual clock, and the
    /// bound on every wait), as opposed to the engine's media time.
    let clock: any MediaClock
    let write: @Sendable (String) -> Void

    public init(session: MediaSession, virtualClock: Bool, clock: any MediaClock = SystemClock.shared, write: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.virtualClock = virtualClock
        self.clock = clock
        self.write = write
    }

    /// Runs every step; throws the first that does not hold.
    public func run(_ script: Script) async throws(Failure) {
        for line in script.lines {
            do {
                let (status, statuses) = try await perform(line.step)
                emit(Entry(line: line.number, step: line.text, ok: true, status: status, statuses: statuses, error: nil))
            } catch {
                let message = (error as? CommandError)?.message ?? "\(error)"
                emit(Entry(line: line.number, step: line.text, ok: false, status: nil, statuses: nil, error: message))
                throw Failure(line: line.number, message: message)
            }
        }
    }

    private func emit(_ entry: Entry) {
        write(ModelJSON.text(entry))
    }

    private struct Unmet: Error, CustomStringConvertible {
        let description: String
    }

    /// Each step is one call of the command layer (or a read of its state).
    private func perform(_ step: ScriptStep) async throws -> (ItemStatus?, [ItemStatus]?) {
        switch step {
        case let .command(command):
            // The one entry point, as every front end; a control that acts
            // on no item reports the current one.
            let outcome = try await session.perform(command)
            if case let .item(status) = outcome { return (status, nil) }
            return (session.currentStatus(), nil)
        case let .wait(seconds):
            try await pass(seconds)
            return (session.currentStatus(), nil)
        case let .waitUntil(goal, selector, timeout):
            let item = try session.item(selector)
            // Virtual time counts only the media that played; real time
            // bounds the wait too, for a player that is busy finishing.
            var waited = 0.0
            let realLimit = clock.now + (virtualClock ? max(timeout, 10) : timeout)
            while !reached(goal, item) {
                if waited >= timeout || clock.now > realLimit {
                    throw Unmet(description: "item \(item.position) was not \(goal) within \(format(timeout)) s (it is \(session.status(of: item).state.rawValue))")
                }
                let step = min(0.05, timeout - waited)
                // A download takes real time, even on the virtual clock.
                if virtualClock && session.status(of: item).state != .downloading {
                    let before = session.currentStatus()?.position
                    await session.advanceVirtualClock(by: step)
                    let after = session.currentStatus()?.position
                    if let before, let after, after > before {
                        waited += after - before
                    } else {
                        try await clock.sleep(for: 0.001)
                    }
                } else {
                    try await clock.sleep(for: step)
                    waited += step
                }
            }
            return (session.status(of: item), nil)
        case let .expectState(selector, expected):
            let item = try session.item(selector)
            let status = session.status(of: item)
            guard status.state == expected else {
                throw Unmet(description: "expected item \(item.position) to be \(expected.rawValue), it is \(status.state.rawValue)\(status.error.map { " (\($0))" } ?? "")")
            }
            return (status, nil)
        case let .expectPosition(selector, seconds, tolerance):
            let item = try session.item(selector)
            let status = session.status(of: item)
            guard abs(status.position - seconds) <= tolerance + 1e-9 else {
                throw Unmet(description: "expected item \(item.position) at \(format(seconds)) ±\(format(tolerance)) s, it is at \(format(status.position)) s")
            }
            return (status, nil)
        case let .expectVolume(level):
            let settings = session.audioSettings
            guard settings.volume == level else {
                throw Unmet(description: "expected the volume at \(level) %, it is \(settings.volume) %\(settings.muted ? " (muted)" : "")")
            }
            return (session.currentStatus(), nil)
        case let .expectSpeed(value):
            let speed = session.audioSettings.speed
            guard abs(speed - value) < 1e-9 else { throw Unmet(description: "expected speed \(value), it is \(speed)") }
            return (session.currentStatus(), nil)
        case let .expectItem(selector):
            let item = try session.item(selector)
            guard let current = session.currentStatus(), current.id == item.key else {
                let now = session.currentStatus().map { "item \($0.item)" } ?? "nothing"
                throw Unmet(description: "expected item \(item.position) to be the current item, it is \(now)")
            }
            return (current, nil)
        case let .expectSubtitle(expected):
            guard let current = session.currentStatus() else { throw Unmet(description: "expected a subtitle, but nothing is playing") }
            guard current.subtitle == expected else {
                func said(_ text: String?) -> String { text.map { "\"\($0.replacingOccurrences(of: "\n", with: "\\n"))\"" } ?? "none" }
                throw Unmet(description: "expected subtitle \(said(expected)) at \(format(current.position)) s, it is \(said(current.subtitle))")
            }
            return (current, nil)
        case .status:
            return (nil, session.activeStatuses())
        }
    }

    private func reached(_ goal: ScriptStep.Goal, _ item: FeedItem) -> Bool {
        switch goal {
        case .cached: return session.isCached(item.key)
        case let .state(state): return session.status(of: item).state == state
        }
    }

    /// Lets `seconds` pass: media time on the virtual clock, else wall time.
    private func pass(_ seconds: Double) async throws {
        if virtualClock {
            await session.advanceVirtualClock(by: seconds)
        } else {
            try await clock.sleep(for: seconds)
        }
    }

    private func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}
