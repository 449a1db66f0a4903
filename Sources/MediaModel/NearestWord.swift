/// "Did you mean": the known word nearest to a mistyped one, when it is
/// close enough to be a slip of the fingers (at most a third of it differs).
public enum NearestWord {
    public static func suggestion(for word: String, among words: [String]) -> String? {
        let typed = word.lowercased()
        guard let (nearest, cost) = words.map({ ($0, distance(typed, $0)) }).min(by: { $0.1 < $1.1 }) else { return nil }
        return cost <= max(1, nearest.count / 3) ? nearest : nil
    }

    /// Edit distance (insert, delete, replace, swap of neighbours), one row at a time.
    public static func distance(_ a: String, _ b: String) -> Int {
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
