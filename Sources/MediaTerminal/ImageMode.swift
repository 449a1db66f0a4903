/// How pictures are drawn in the terminal.
public enum ImageMode: String, Sendable, CaseIterable {
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty).
    case kitty
    /// DEC sixel graphics (foot, mlterm, WezTerm, xterm -ti vt340, contour).
    case sixel
    /// Truecolour half-block characters: any colour terminal.
    case blocks
    /// No pictures (a dumb terminal, or asked for).
    case none

    /// The best mode the environment says the terminal has. Inside tmux or
    /// screen pixels do not pass through reliably, so blocks.
    public static func detect(environment: [String: String]) -> ImageMode {
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" { return .none }
        if environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") { return .blocks }
        let program = environment["TERM_PROGRAM"] ?? ""
        if term == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil || term == "xterm-ghostty" || program == "ghostty" {
            return .kitty
        }
        if program == "WezTerm" { return .kitty }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") || term.hasPrefix("contour") || program == "mintty" {
            return .sixel
        }
        return .blocks
    }

    /// Pictures are drawn in pixels over the text grid (not as text).
    public var usesPixels: Bool { self == .kitty || self == .sixel }
}
