/// A key press (or mouse click) as a terminal names it: read from one in
/// raw mode (MediaTerminal's `KeyDecoder`) or pressed in a video window;
/// a `Keymap` says what it does.
public enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl and a letter ("z" for Ctrl-Z).
    case control(Character)
    /// Ctrl and an arrow (xterm's ESC [ 1 ; 5 C): mpv's long seeks.
    case controlLeft, controlRight, controlUp, controlDown
    /// A left click at a 0-based column and row (SGR mouse reporting).
    case click(column: Int, row: Int)
    /// The mouse wheel, up or down.
    case wheel(up: Bool)
}
