import ArgumentParser
import Foundation
import MediaModel
import MediaControl
import MediaFeed
import MediaTerminal
import MediaplayCommon

public struct StatusCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the background player is doing.",
        discussion: """
            Prints the current item's state and position (and under it, once its file is \
            probed, its duration, tags and format), then any other item that is \
            paused, buffering, downloading, stopped, ended or failed. With --follow, keeps printing \
            each change as it happens until interrupted: a line per change of state and one per \
            second played (--json: one JSON event per line, see docs/PROTOCOL.md). Does not start the background player; exit status 69 when \
            it is not running, and when it quits during --follow.

            Examples:
              mediaplay status
              mediaplay status --json | jq .current.position
              mediaplay status --follow
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON (the protocol's status result; with --follow, its events).")
    var json = false

    @Flag(name: .long, help: "Keep printing state changes as they happen.")
    var follow = false

    public func run() throws {
        try runReportingErrors {
            let client = try BackgroundPlayer.running(global)
            let command: ControlRequest.Command = follow ? .observe : .status
            let status: DaemonStatus
            do {
                status = try client.call(ControlRequest(id: nil, cmd: command), as: DaemonStatus.self)
            } catch {
                throw BackgroundPlayer.cliError(error)
            }
            if json && !follow {
                StandardStream.line(ModelJSON.text(status))
                return
            }
            if !json { printSummary(status) }
            // The summary showed these seconds already.
            var shown: [ItemKey: Int] = [:]
            for item in status.items + [status.current].compactMap({ $0 }) { shown[item.id] = Int(CheckedNumber.position(item.position).rounded(.down)) }
            fflush(nil)
            if follow { try followEvents(client, shown: shown) }
        }
    }

    private func printSummary(_ status: DaemonStatus) {
        // A failure is its item's row, not what the player is doing.
        let current = status.current.flatMap { $0.state == .failed ? nil : $0 }
        if let current {
            StandardStream.line(StatusText.line(current))
            if let line = status.media?.line { StandardStream.line("  " + line) }
            if let gain = current.gain { StandardStream.line("  " + gain.text) }
            if let tracks = current.tracks, !tracks.line.isEmpty { StandardStream.line("  " + tracks.line) }
            if let subtitle = current.subtitle { StandardStream.line("  " + SubtitleLine.text(subtitle)) }
        } else {
            StandardStream.line("■ nothing playing")
        }
        var others = status.items.filter { $0.item != current?.item }
        if let failed = status.current, current == nil, !others.contains(where: { $0.item == failed.item }) { others.insert(failed, at: 0) }
        for item in others {
            StandardStream.line("  " + StatusText.line(item))
        }
        if let audio = status.audio, !audio.isIdentity || audio.loudness != .on { StandardStream.line(audio.line) }
        if let playlist = status.playlist, playlist != PlaylistMode() { StandardStream.line(playlist.line) }
        if let sleep = status.sleep { StandardStream.line(sleep.line) }
        // Which feed its numbers are of (another than the one this command names, said so).
        let asked = (try? global.namedFeed())?.map(BackgroundPlayer.feedIdentity(of:))
        let feed = DisplayWidth.escaped(status.feed.redactingUserinfo)
        if let asked, asked != status.feed {
            StandardStream.line("feed: \(feed) (not \(DisplayWidth.escaped(asked.redactingUserinfo)): 'mediaplay toggle N --replace' switches)")
        } else {
            StandardStream.line("feed: \(feed)")
        }
    }

    /// Prints events until the daemon goes: JSON lines as they come; in
    /// text, a line per change of state and, while playing, a line per
    /// second of media (on a terminal, one line redrawn in place).
    private func followEvents(_ client: ControlClient, shown: [ItemKey: Int]) throws(CLIError) {
        let terminal = TerminalInfo.standardOutput()
        let encoder = ModelJSON.encoder()
        let live = terminal.animates && !json ? LiveRegion(output: STDOUT_FILENO, width: terminal.width) : nil
        var shownSecond = shown
        while true {
            let event: ItemEvent
            do {
                event = try client.nextEvent()
            } catch {
                live?.draw([])
                throw CLIError("the background player quit", exitCode: .unavailable)
            }
            // Written at once (print would buffer a pipe's lines).
            if json {
                // A reader gone (`| head`): nothing left to follow for.
                guard StandardStream.output(((try? encoder.encode(event)) ?? Data()) + Data("\n".utf8)) else { return }
            } else if let live {
                live.draw([StatusText.line(event.status)])
            } else {
                let second = Int(CheckedNumber.position(event.status.position).rounded(.down))
                let moved = event.event == .position && event.status.state == .playing && shownSecond[event.status.id] != second
                if event.event == .subtitle {
                    guard StandardStream.output((SubtitleLine.text(event.status.subtitle) + "\n").utf8) else { return }
                    continue
                }
                guard event.event == .state || event.event == .metadata || moved else { continue }
                shownSecond[event.status.id] = second
                guard StandardStream.output((StatusText.line(event.status) + "\n").utf8) else { return }
            }
        }
    }
}

/// A subtitle on one line of `status`: "💬 First line / second line".
enum SubtitleLine {
    static func text(_ subtitle: String?) -> String {
        guard let subtitle else { return "💬 –" }
        return "💬 " + subtitle.split(separator: "\n").map { DisplayWidth.singleLine(String($0)) }.joined(separator: " / ")
    }
}
