import MediaTerminal

/// A subtitle as terminal text: centred on the rows between the picture
/// and the status line (over the picture's bottom rows when there is no
/// room), wrapped to the width, three rows at most, cut with "…". The text
/// comes made safe (`SubtitleText`); each line is made one line again here.
enum SubtitleRows {
    /// Appends the subtitle's rows, and clears the rows below the picture
    /// that an earlier one took.
    static func draw(_ text: String?, below picture: (top: Int, rows: Int)?, in area: PictureArea, into out: inout [UInt8]) {
        let pictureEnd = picture.map { $0.top + $0.rows - 1 } ?? 0
        // The free rows under the picture: cleared at every picture.
        if pictureEnd < area.rows {
            for row in (pictureEnd + 1)...area.rows { out += "\u{1B}[\(row);1H\u{1B}[2K".utf8 }
        }
        guard let text, !text.isEmpty else { return }
        let rows = SubtitleLayout.rows(text, width: area.columns)
        guard !rows.isEmpty else { return }
        let free = area.rows - pictureEnd
        let first = free >= rows.count ? pictureEnd + 1 : max(1, area.rows - rows.count + 1)
        out += "\u{1B}[0m".utf8
        for (index, row) in rows.enumerated() {
            let left = 1 + max(0, (area.columns - DisplayWidth.of(row)) / 2)
            out += "\u{1B}[\(first + index);\(left)H".utf8
            out += row.utf8
        }
    }
}
