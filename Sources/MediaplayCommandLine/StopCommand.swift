import ArgumentParser
import Foundation
import MediaTerminal
import MediaModel
import MediaControl
import MediaFeed
import MediaplayCommon

public struct StopCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop playback in the background player (its position is kept for the next toggle).",
        discussion: "Does nothing when the background player is not running."
    )

    @OptionGroup var global: GlobalOptions

    public func run() throws {
        try runReportingErrors {
            guard let client = try BackgroundPlayer.connect(global, start: false) else {
                StandardStream.line("■ nothing playing")
                return
            }
            let stopped: ItemStatus?
            do {
                stopped = try client.perform(.stop(nil)).item
            } catch {
                throw BackgroundPlayer.cliError(error)
            }
            StandardStream.line(stopped.map(StatusText.line) ?? "■ nothing playing")
        }
    }
}

public struct QuitCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "quit",
        abstract: "End the background player (playback stops, positions are saved).",
        discussion: "Does nothing when the background player is not running."
    )

    @OptionGroup var global: GlobalOptions

    public func run() throws {
        try runReportingErrors {
            guard let client = try BackgroundPlayer.connect(global, start: false) else {
                StandardStream.error("mediaplay: the background player is not running\n")
                return
            }
            try BackgroundPlayer.quit(client)
            StandardStream.error("mediaplay: background player stopped\n")
        }
    }
}
