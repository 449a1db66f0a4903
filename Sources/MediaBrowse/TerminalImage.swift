import CChafa
import Foundation
import MediaEngine
import MediaTerminal

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
    private let termInfo: OpaquePointer?
    private let symbols: OpaquePointer?

    /// `colors` false (NO_COLOR): blocks in the terminal's own foreground
    /// and background only, shapes without colour.
    public init(mode: ImageMode, colors: Bool) {
        self.mode = mode
        self.colors = colors
        // The sequences to print come from chafa's database for a terminal of
        // the chosen kind, not from the user's TERM: the mode is decided.
        let environment: [String]
        switch mode {
        case .kitty: environment = ["TERM=xterm-kitty"]
        case .sixel: environment = ["TERM=mlterm"]
        case .blocks, .none: environment = ["TERM=xterm-256color", "COLORTERM=truecolor"]
        }
        var pointers: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        termInfo = chafa_term_db_detect(chafa_term_db_get_default(), &pointers)
        for pointer in pointers { free(pointer) }
        let map = chafa_symbol_map_new()
        chafa_symbol_map_add_by_tags(map, ChafaSymbolTags(rawValue: CHAFA_SYMBOL_TAG_SPACE.rawValue | CHAFA_SYMBOL_TAG_VHALF.rawValue))
        symbols = map
    }

    deinit {
        if let termInfo { chafa_term_info_unref(termInfo) }
        if let symbols { chafa_symbol_map_unref(symbols) }
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

        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, width, height)
        chafa_canvas_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        // No cursor movement or repeat sequences inside a row: rows are
        // placed side by side with other text.
        chafa_canvas_config_set_optimizations(config, CHAFA_OPTIMIZATION_NONE)
        switch mode {
        case .kitty: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
        case .sixel: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
        case .blocks, .none:
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            chafa_canvas_config_set_canvas_mode(config, colors ? CHAFA_CANVAS_MODE_TRUECOLOR : CHAFA_CANVAS_MODE_FGBG)
            if let symbols { chafa_canvas_config_set_symbol_map(config, symbols) }
        }
        guard let canvas = chafa_canvas_new(config) else { return nil }
        defer { chafa_canvas_unref(canvas) }
        picture.pixels.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress,
                Int32(picture.width), Int32(picture.height), Int32(picture.width * 4)
            )
        }
        guard let printed = chafa_canvas_print(canvas, termInfo) else { return nil }
        defer { mp_g_string_free(printed) }
        let text = String(cString: printed.pointee.str)
        if mode.usesPixels {
            return TerminalImage(columns: Int(width), rows: Int(height), lines: [], graphics: text)
        }
        // One row per line; each ends with its attributes reset so that what
        // follows it on the screen row is unstyled.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(Int(height)).map { String($0) + "\u{1B}[0m" }
        return TerminalImage(columns: Int(width), rows: lines.count, lines: lines)
    }
}
