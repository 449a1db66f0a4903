/// A plain text table that fits a width: flexible columns shrink (and their
/// cells end in "…") so that no row is ever wider than the terminal.
public struct Table: Sendable {
    public struct Column: Sendable {
        public var header: String
        public var alignRight: Bool
        /// Shrinkable down to this many columns; nil for a fixed-width column.
        public var minimumWidth: Int?
        /// How much of the shrinking this column takes, relative to others.
        public var shrinkWeight: Int

        public init(_ header: String, alignRight: Bool = false, minimumWidth: Int? = nil, shrinkWeight: Int = 1) {
            self.header = header
            self.alignRight = alignRight
            self.minimumWidth = minimumWidth
            self.shrinkWeight = shrinkWeight
        }
    }

    /// A cell: its text, and a style applied after fitting (so escapes never
    /// count towards the width).
    public struct Cell: Sendable, ExpressibleByStringLiteral {
        public var text: String
        public var style: Style?

        public init(_ text: String, style: Style? = nil) {
            self.text = DisplayWidth.singleLine(text)
            self.style = style
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }
    }

    public var columns: [Column]
    public var rows: [[Cell]] = []
    public static let gap = 2

    public init(columns: [Column]) {
        self.columns = columns
    }

    public mutating func append(_ row: [Cell]) {
        precondition(row.count == columns.count, "a row needs one cell per column")
        rows.append(row)
    }

    /// Column widths for `maximumWidth` (nil: no limit).
    public func widths(fitting maximumWidth: Int?) -> [Int] {
        var widths = columns.indices.map { index in
            max(DisplayWidth.of(columns[index].header), rows.map { DisplayWidth.of($0[index].text) }.max() ?? 0)
        }
        guard let maximumWidth else { return widths }
        let total = { widths.reduce(0, +) + Table.gap * max(0, widths.count - 1) }
        // Take the excess from flexible columns in proportion to weight: first
        // down to each column's minimum, then, on a very narrow terminal, down
        // to a few characters each, so that no row ever wraps.
        for floor in [nil, Table.narrowestFlexibleWidth] as [Int?] {
            var excess = total() - maximumWidth
            while excess > 0 {
                let limit = { (index: Int) in floor ?? self.columns[index].minimumWidth! }
                let shrinkable = columns.indices.filter { index in
                    columns[index].minimumWidth != nil && widths[index] > limit(index)
                }
                if shrinkable.isEmpty { break }
                let weightSum = shrinkable.reduce(0) { $0 + columns[$1].shrinkWeight }
                var taken = 0
                for index in shrinkable {
                    let share = max(1, excess * columns[index].shrinkWeight / max(1, weightSum))
                    let cut = min(share, widths[index] - limit(index), excess - taken)
                    widths[index] -= cut
                    taken += cut
                    if taken >= excess { break }
                }
                if taken == 0 { break }
                excess -= taken
            }
        }
        return widths
    }

    /// The last-resort width of a flexible column: room for "ab…".
    public static let narrowestFlexibleWidth = 3

    /// The table as lines, each at most `maximumWidth` columns wide where the
    /// fixed columns allow.
    public func render(maximumWidth: Int?, colors: Bool) -> [String] {
        let widths = widths(fitting: maximumWidth)
        func line(_ cells: [Cell], headerStyle: Bool) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                var text = DisplayWidth.pad(cell.text, to: widths[index], alignRight: columns[index].alignRight)
                if isLast && !columns[index].alignRight {
                    // No trailing spaces at the end of a line.
                    text = DisplayWidth.truncate(cell.text, to: widths[index])
                }
                let style = headerStyle ? Style.bold : cell.style
                parts.append(style?.apply(text, enabled: colors) ?? text)
            }
            var joined = parts.joined(separator: String(repeating: " ", count: Table.gap))
            // No trailing spaces: empty right-aligned cells at the end pad nothing.
            while joined.hasSuffix(" ") { joined.removeLast() }
            return joined
        }
        return [line(columns.map { Cell($0.header) }, headerStyle: true)] + rows.map { line($0, headerStyle: false) }
    }
}

/// Sizes in the units people read: 1023 B, 1.5 KiB, 12.3 MiB, 4.0 GiB.
public func formatByteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    let rounded = (value * 10).rounded() / 10
    if rounded >= 100 { return "\(Int(value.rounded())) \(units[unit])" }
    return "\(rounded) \(units[unit])"
}
