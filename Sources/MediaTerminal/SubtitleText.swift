/// A subtitle's text as a terminal shows it: libavcodec hands text
/// subtitles over as ASS events, whose override tags (`{\b1}`, `{\pos(…)}`)
/// style the picture and are removed here; `\N` and `\n` break the line and
/// `\h` is a space. What is left is made safe like any string from a file.
public enum SubtitleText {
    /// The text of an ASS event as libavcodec gives it ("ReadOrder, Layer,
    /// Style, Name, MarginL, MarginR, MarginV, Effect, Text"), or of a
    /// `Dialogue:` line: the fields before the text dropped.
    public static func plain(assEvent: String) -> String {
        var text = Substring(assEvent)
        if text.hasPrefix("Dialogue:") { text = text.dropFirst("Dialogue:".count) }
        // The text is the ninth field of an event (the tenth of a Dialogue line).
        let fields = assEvent.hasPrefix("Dialogue:") ? 9 : 8
        for _ in 0..<fields {
            guard let comma = text.firstIndex(of: ",") else { return plain(assText: String(text)) }
            text = text[text.index(after: comma)...]
        }
        return plain(assText: String(text))
    }

    /// ASS text: tags removed, line breaks kept as "\n", every line trimmed,
    /// empty lines dropped, control characters made safe.
    public static func plain(assText: String) -> String {
        var out = ""
        var inTag = false
        var escape = false
        for character in assText {
            if inTag {
                if character == "}" { inTag = false }
                continue
            }
            if escape {
                escape = false
                switch character {
                case "N", "n": out.append("\n")
                case "h": out.append(" ")
                // `\{` and `\}` are not tags; anything else stays as it was written.
                default: out.append("\\"); out.append(character)
                }
                continue
            }
            switch character {
            case "{": inTag = true
            case "\\": escape = true
            default: out.append(character)
            }
        }
        if escape { out.append("\\") }
        return lines(out)
    }

    /// Plain text (SubRip without tags, WebVTT's payload): its lines cleaned.
    public static func lines(_ text: String) -> String {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { DisplayWidth.singleLine(String($0)) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }
}
