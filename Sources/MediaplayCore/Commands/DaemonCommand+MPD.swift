import Foundation
import Logging
import MediaCache
import MediaConfig
import MediaFeed
import MediaMPD
import MediaModel
import MediaSession
import MediaplayCommandLine
import MediaplayCommon
import MediaWiring

/// The daemon's MPD listener: `--mpd HOST:PORT` or config.toml's `[mpd]`
/// (off unless asked), refused at start when it would be reachable from
/// other machines without a password.
extension DaemonCommand {
    /// What to listen on and with which password; nil when MPD is off.
    /// Exit 64 for a bad `--mpd`, 78 for a bad `[mpd]`.
    static func mpdOptions(option: String?, config: Config) async throws(CLIError) -> MPDServer.Options? {
        let fromOption = option != nil
        guard let text = option ?? config.mpdListen else { return nil }
        let code: SysExit = fromOption ? .usage : .config
        let origin = fromOption ? "--mpd" : "[mpd] listen in \(config.path ?? "config.toml")"
        let address: MPDAddress
        do {
            address = try MPDAddress(parsing: text)
        } catch {
            throw CLIError("\(origin): \(error.message)", exitCode: code)
        }
        var password = config.mpdPassword
        if password == nil, let command = config.mpdPasswordCommand {
            password = try await Self.passwordFromCommand(command)
        }
        if password == nil, !address.isLoopback {
            throw CLIError(
                "\(origin): refusing to serve MPD on \(address), which other machines can reach, without a password (set [mpd] password or password-command in config.toml, or listen on 127.0.0.1)",
                exitCode: code
            )
        }
        return MPDServer.Options(address: address, password: password, maximumClients: config.mpdMaxClients ?? 100)
    }

    /// The first line `command` prints (`PasswordCommand`: bounded in
    /// time), on a thread of its own: it waits, and the cooperative pool never does.
    private static func passwordFromCommand(_ command: String) async throws(CLIError) -> String {
        let result: Result<String, CLIError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(CLIError) {
                    continuation.resume(returning: .success(try PasswordCommand.firstLine(of: command, section: "mpd")))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Starts the listener beside the socket; a listen address that cannot
    /// be bound ends the daemon's start with the reason.
    static func startMPD(
        _ options: MPDServer.Options, session: MediaSession, cache: MediaCache?, logger: Logger, followFeed: @escaping @Sendable () -> Void
    ) throws(CLIError) -> MPDServer {
        do {
            let server = try MPDServer(
                session: session, options: options,
                details: { items in ItemDetails.lookup(items, cache: cache) },
                cover: { item in
                    switch item.thumbnail ?? (item.kind == .image ? item.source : nil) {
                    case let .file(path)?: return path
                    case let .remote(url)?: return cache?.cachedFile(for: url)
                    case nil: return nil
                    }
                },
                followFeed: followFeed,
                log: { logger.warning("\($0)") }
            )
            server.start()
            logger.info("MPD: listening on \(options.address) (port \(server.port))")
            return server
        } catch {
            throw CLIError("cannot serve MPD: \(error.message)", exitCode: .unavailable)
        }
    }
}
