/// A subtitle's rows under a picture: each of its lines wrapped to the
/// width, three rows at most, the last cut with "…" when more was left out.
/// Terminal video and browse lay subtitles out alike.
public enum SubtitleLayout {
    public static let maximumRows = 3

    public static func rows(_ text: String, width: Int, maximum: Int = maximumRows) -> [String] {
        guard width > 0, maximum > 0 else { return [] }
        var rows: [String] = []
        for line in text.split(separator: "\n") {
            rows += DisplayWidth.wrap(String(line), width: width)
        }
        guard rows.count > maximum else { return rows }
        var kept = Array(rows.prefix(maximum))
        kept[maximum - 1] = DisplayWidth.truncate(kept[maximum - 1] + "…", to: width)
        return kept
    }
}
