import MediaModel

/// What the user asked for in the video window.
public enum VideoWindowInput: Sendable, Equatable {
    /// A key pressed in the window, as a terminal would name it: the
    /// keymap (the front end's) says what it does, not the engine.
    case key(Key)
    /// The window was closed.
    case closed
}
