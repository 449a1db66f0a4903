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

    /// The first line `command` prints (run by /bin/sh), off the cooperative pool.
    private static func passwordFromCommand(_ command: String) async throws(CLIError) -> String {
        let result: Result<String, CLIError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", command]
                let output = Pipe()
                process.standardOutput = output
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: .failure(CLIError("[mpd] password-command: cannot run it: \(error)", exitCode: .config)))
                    return
                }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                let line = String(decoding: data.prefix(4096), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
                guard process.terminationStatus == 0, !line.isEmpty else {
                    continuation.resume(returning: .failure(CLIError("[mpd] password-command printed no password (exit \(process.terminationStatus)); check the command in config.toml", exitCode: .config)))
                    return
                }
                continuation.resume(returning: .success(line))
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
