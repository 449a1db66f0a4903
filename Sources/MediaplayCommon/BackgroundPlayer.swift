import Foundation
import MediaModel
import MediaControl
import MediaFeed
import MediaTerminal

/// What the client commands (`toggle`, `status`, `stop`, `quit`) share: where
/// the daemon lives, how to start it, and how its answers become output and
/// exit codes.
public enum BackgroundPlayer {
    public static func paths(_ global: GlobalOptions) -> ControlPaths {
        ControlPaths(runtimeDirectory: global.runtimeDirectory)
    }

    /// `$XDG_STATE_HOME/mediaplay`: the daemon's log and resume positions.
    public static func stateDirectory(_ global: GlobalOptions) -> String {
        XDG.stateHome(global.environment) + "/mediaplay"
    }

    public static func logPath(_ global: GlobalOptions) -> String { stateDirectory(global) + "/daemon.log" }

    /// The daemon's command line: this program, with the client's feed,
    /// cache and runtime directory.
    /// A feed URL with a password goes by the environment instead (see
    /// `connect`): a command line is anyone's to read in /proc.
    public static func daemonCommand(_ global: GlobalOptions, feed: String, options: [String] = []) -> [String] {
        let feedArguments = feed.redactingUserinfo == feed ? ["--feed", feed] : []
        return [runningExecutable(), "daemon", "--foreground"] + feedArguments + [
            "--cache-dir", global.cacheDirectory, "--runtime-dir", global.runtimeDirectory,
        ] + options
    }

    /// Connects to the daemon, starting it first when `start` is set.
    public static func connect(_ global: GlobalOptions, start: Bool, daemonOptions: [String] = []) throws(CLIError) -> ControlClient? {
        do {
            if start {
                let feed = try feedIdentity(global)
                let command = daemonCommand(global, feed: feed, options: daemonOptions)
                // The daemon inherits this environment, readable by its user alone.
                var context = CommandContext.current
                if !command.contains("--feed") { context = context.setting("MEDIAPLAY_FEED", to: feed) }
                return try context.bind { try DaemonLauncher.connect(paths(global), starting: command, logPath: logPath(global)) }
            }
            return try ControlClient.connect(paths(global))
        } catch let error as ControlClientError {
            throw cliError(error)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("\(error)", exitCode: .failure)
        }
    }

    /// The running background player, or the one error for when it is not.
    public static func running(_ global: GlobalOptions) throws(CLIError) -> ControlClient {
        guard let client = try connect(global, start: false) else {
            throw CLIError("the background player is not running (start it with 'mediaplay toggle N')", exitCode: .unavailable)
        }
        return client
    }

    /// One request to the running background player, its result decoded;
    /// a refusal becomes its exit status (see `cliError`).
    public static func call<Result: Decodable>(_ request: ControlRequest, as type: Result.Type, _ global: GlobalOptions) throws(CLIError) -> Result {
        let client = try running(global)
        do {
            return try client.call(request, as: type)
        } catch {
            throw cliError(error)
        }
    }

    /// `command` to the running background player, its reply read in the
    /// shape the command's definition names.
    public static func perform(_ command: PlayerCommand, _ global: GlobalOptions) throws(CLIError) -> PlayerOutcome {
        let client = try running(global)
        do {
            return try client.perform(command)
        } catch {
            throw cliError(error)
        }
    }

    /// The status of the item `command` acted on (a command whose reply,
    /// by its definition, is an item's status).
    public static func itemStatus(after command: PlayerCommand, _ global: GlobalOptions) throws(CLIError) -> ItemStatus {
        guard let status = try perform(command, global).item else {
            throw CLIError("the background player's reply to \(command) names no item", exitCode: .failure)
        }
        return status
    }

    /// The items the background player is playing, showing, buffering or
    /// holding paused, by item key, when it runs with this feed; empty when it
    /// does not run, runs another feed or does not answer within a second
    /// (`list` works the same without it, so nothing here is an error).
    public static func activeItems(_ global: GlobalOptions) -> [ItemKey: ItemStatus] {
        guard let feed = try? feedIdentity(global),
              let client = try? ControlClient.connect(paths(global))
        else { return [:] }
        client.setReplyTimeout(seconds: 1)
        guard let status = try? client.call(ControlRequest(id: nil, cmd: .status), as: DaemonStatus.self),
              status.feed == feed
        else { return [:] }
        var active: [ItemKey: ItemStatus] = [:]
        for item in status.items + [status.current].compactMap({ $0 }) where item.state.isActive {
            active[item.id] = item
        }
        return active
    }

    /// Ends the background player `client` speaks to, and waits until it
    /// has gone (its lock let go: a start right after makes a new one).
    public static func quit(_ client: ControlClient) throws(CLIError) {
        let daemon = client.daemonPID
        do {
            _ = try client.call(ControlRequest(id: nil, cmd: .quit), as: EmptyResult.self)
        } catch {
            throw cliError(error)
        }
        // The daemon closes the connection once it has stopped, and lets
        // its lock go as it exits: once it has, no player is left, and a
        // toggle right after starts anew.
        _ = try? client.nextLine()
        if let daemon { ControlClient.waitForExit(of: daemon, seconds: ClientTimeout.seconds()) }
    }

    /// The feed as the daemon knows it: an absolute path, or the URL.
    public static func feedIdentity(_ global: GlobalOptions) throws(CLIError) -> String {
        feedIdentity(of: try global.feedLocation())
    }

    public static func feedIdentity(of feed: String) -> String {
        feed.contains("://") ? feed : absolutePath(feed)
    }

    /// One line, with the exit code the documentation promises: no such item
    /// 66, invalid item 65, download failed or daemon unreachable 69.
    public static func cliError(_ error: any Error) -> CLIError {
        guard let error = error as? ControlClientError else { return CLIError("\(error)", exitCode: .failure) }
        switch error {
        case let .unreachable(message):
            return CLIError(message, exitCode: .unavailable)
        case let .protocolError(message):
            return CLIError(message, exitCode: .unavailable)
        case let .refused(refusal):
            switch refusal.code {
            case .noSuchItem: return CLIError(refusal.message, exitCode: .noInput)
            case .invalidItem: return CLIError(refusal.message + " (fix the feed, see docs/FEED.md)", exitCode: .dataError)
            case .downloadFailed, .wrongFeed, .shuttingDown, .unavailable: return CLIError(refusal.message, exitCode: .unavailable)
            // Another user's background player, or a server refusing the login.
            case .forbidden: return CLIError(refusal.message, exitCode: .noPermission)
            case .badRequest, .unknownCommand, .lineTooLong: return CLIError(refusal.message, exitCode: .usage)
            case .playbackFailed: return CLIError(refusal.message, exitCode: .failure)
            }
        }
    }
}

