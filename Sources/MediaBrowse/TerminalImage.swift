import CChafa
import Foundation
import MediaEngine
import MediaTerminal
import MediaTerminalVideo

/// A picture rendered for the terminal, `columns` × `rows` cells.
public struct TerminalImage: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    /// Blocks: one string per row, exactly `columns` cells wide, styled.
    public var lines: [String]
    /// Kitty or sixel: the escape sequence that draws the picture at the cursor.
    public var graphics: String?
}

/// Renders RGBA pictures with libchafa in one `ImageMode`. Rendering is CPU
/// work (milliseconds for a thumbnail): call it off the UI's queue.
public final class TerminalImageRenderer: @unchecked Sendable {
    public let mode: ImageMode
    private let colors: Bool
    private let chafa: ChafaTerminal

    /// `colors` false (NO_COLOR): blocks in the terminal's own foreground
    /// and background only, shapes without colour.
    public init(mode: ImageMode, colors: Bool) {
        self.mode = mode
        self.colors = colors
        chafa = ChafaTerminal(mode: mode)
    }

    /// The picture fitted into `columns` × `rows` cells (aspect kept, so one
    /// side may come out smaller); `cellWidth`/`cellHeight` are a cell's
    /// size in pixels, which sixel and kitty need.
    public func render(_ picture: RGBAPicture, columns: Int, rows: Int, cellWidth: Int = 10, cellHeight: Int = 20) -> TerminalImage? {
        guard mode != .none, columns > 0, rows > 0, picture.width > 0, picture.height > 0 else { return nil }
        var width = Int32(columns), height = Int32(rows)
        // A cell is about twice as tall as it is wide.
        let fontRatio = Float(cellWidth) / Float(max(1, cellHeight))
        chafa_calc_canvas_geometry(Int32(picture.width), Int32(picture.height), &width, &height, fontRatio, 1, 0)
        width = max(1, min(width, Int32(columns)))
        height = max(1, min(height, Int32(rows)))

        // Each row stands alone: rows are placed side by side with other text.
        guard let canvas = chafa.canvas(columns: Int(width), rows: Int(height), cellWidth: cellWidth, cellHeight: cellHeight, colors: colors, reuseAttributes: false) else { return nil }
        defer { ChafaTerminal.release(canvas) }
        let printed = picture.pixels.withUnsafeBufferPointer { pixels in
            chafa.print(canvas, pixels: pixels.baseAddress!, width: picture.width, height: picture.height, stride: picture.width * 4)
        }
        guard let text = printed else { return nil }
        if mode.usesPixels {
            return TerminalImage(columns: Int(width), rows: Int(height), lines: [], graphics: text)
        }
        // One row per line; each ends with its attributes reset so that what
        // follows it on the screen row is unstyled.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(Int(height)).map { String($0) + "\u{1B}[0m" }
        return TerminalImage(columns: Int(width), rows: lines.count, lines: lines)
    }
}
