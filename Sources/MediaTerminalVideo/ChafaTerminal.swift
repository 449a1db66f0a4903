import CChafa
import Foundation
import MediaTerminal

/// What libchafa needs to draw for one kind of terminal: its escape
/// sequences (from chafa's database for a terminal of that kind, not from the
/// user's TERM: the mode is decided) and the symbols blocks use (spaces and
/// half blocks). Shared by browse's pictures and the terminal video sink.
public final class ChafaTerminal: @unchecked Sendable {
    public let mode: ImageMode
    let termInfo: OpaquePointer?
    private let symbols: OpaquePointer?

    public init(mode: ImageMode) {
        self.mode = mode
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

    /// A canvas of `columns` × `rows` cells of `cellWidth` × `cellHeight`
    /// pixels; `colors` false (NO_COLOR): blocks in the terminal's own two
    /// colours. `reuseAttributes`: colours only where they change (rows
    /// written in order); otherwise each row stands alone.
    public func canvas(columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, colors: Bool, reuseAttributes: Bool) -> OpaquePointer? {
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        chafa_canvas_config_set_optimizations(config, reuseAttributes ? CHAFA_OPTIMIZATION_REUSE_ATTRIBUTES : CHAFA_OPTIMIZATION_NONE)
        switch mode {
        case .kitty: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
        case .sixel: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
        case .blocks, .none:
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            chafa_canvas_config_set_canvas_mode(config, colors ? CHAFA_CANVAS_MODE_TRUECOLOR : CHAFA_CANVAS_MODE_FGBG)
            if let symbols { chafa_canvas_config_set_symbol_map(config, symbols) }
        }
        return chafa_canvas_new(config)
    }

    /// Draws RGBA pixels on `canvas` and returns the escape sequences.
    public func print(_ canvas: OpaquePointer, pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> String? {
        chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels, Int32(width), Int32(height), Int32(stride))
        guard let printed = chafa_canvas_print(canvas, termInfo) else { return nil }
        defer { mp_g_string_free(printed) }
        return String(cString: printed.pointee.str)
    }
}

extension ChafaTerminal {
    /// Frees a canvas from `canvas(…)`.
    public static func release(_ canvas: OpaquePointer) { chafa_canvas_unref(canvas) }
}
