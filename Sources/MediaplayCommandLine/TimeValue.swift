import MediaTerminal
import ArgumentParser
import MediaModel

/// A time on the command line (`play --start 1:30`): seconds (`90`, `2.5`),
/// `M:SS` or `H:MM:SS`, read by the one parser every command uses
/// (`PlayerCommand.seconds`: `seek`, `play N from`, key bindings, scripts).
public struct TimeValue: ExpressibleByArgument, Sendable, Equatable {
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    public init?(argument: String) {
        guard let seconds = PlayerCommand.seconds(argument) else { return nil }
        self.seconds = seconds
    }

    public var defaultValueDescription: String { StatusText.clock(seconds) }
}
