import Foundation
import MediaModel

/// A first argument that is no command (`mediaplay paly 2`): named, with the
/// nearest command, rather than read as `list`'s arguments.
public enum UnknownCommand {
    /// The one-line error for `word`, or nil when it is a command, an option
    /// or `help`.
    public static func message(for word: String, commands: [String]) -> String? {
        guard !word.hasPrefix("-"), word != "help", !commands.contains(word) else { return nil }
        var text = "unknown command \"\(word)\""
        if let name = NearestWord.suggestion(for: word, among: commands) { text += " (did you mean \"\(name)\"?)" }
        return text + "; see 'mediaplay --help' for the commands"
    }
}
