import Foundation

/// A first argument that is no command (`mediaplay paly 2`): named, with the
/// nearest command, rather than read as `list`'s arguments.
public enum UnknownCommand {
    /// The one-line error for `word`, or nil when it is a command, an option
    /// or `help`.
    public static func message(for word: String, commands: [String]) -> String? {
        guard !word.hasPrefix("-"), word != "help", !commands.contains(word) else { return nil }
        let nearest = commands.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        var text = "unknown command \"\(word)\""
        // Close enough to be a slip of the fingers: at most a third of it differs.
        if let (name, cost) = nearest, cost <= max(1, name.count / 3) { text += " (did you mean \"\(name)\"?)" }
        return text + "; see 'mediaplay --help' for the commands"
    }

    /// Edit distance (insert, delete, replace, swap of neighbours), one row at a time.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = min(row[j], before[j - 2] + 1) }
            }
            (before, previous, row) = (previous, row, before)
        }
        return previous[b.count]
    }
}
