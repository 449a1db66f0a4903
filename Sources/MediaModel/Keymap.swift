/// Keys to commands: what `play`, a window and browse do with a key that is
/// not their own (browse keeps its arrows, Enter, i, r, ? and q for moving
/// about). A binding's value is a command line as typed after `mediaplay`,
/// so keys, the command line, scripts and the socket share one vocabulary.
/// The keys are mpv's where mpv has one.
public struct Keymap: Sendable, Equatable {
    /// Key name ("space", "left", "ctrl+right", "9", "[") → command.
    public private(set) var bindings: [String: PlayerCommand]

    public init(bindings: [String: PlayerCommand]) {
        self.bindings = bindings
    }

    /// What 9 and 0 change the volume by.
    public static let volumeStep = 5

    /// The bindings every front end starts from.
    public static let standard = Keymap(bindings: [
        "space": .toggle(nil), "p": .toggle(nil),
        "left": .seek(.by(-5), nil), "right": .seek(.by(5), nil),
        "down": .seek(.by(-60), nil), "up": .seek(.by(60), nil),
        "b": .seek(.by(-10), nil), "f": .seek(.by(10), nil),
        "9": .volume(.by(-volumeStep)), "0": .volume(.by(volumeStep)), "m": .mute(nil),
        "[": .speed(.times(1 / 1.1)), "]": .speed(.times(1.1)), "backspace": .speed(.reset),
        "<": .previous, ">": .next,
        // Chapters, as mpv has them.
        "pgup": .chapter(.previous), "pgdn": .chapter(.next),
        // The sleep timer: 15, 30, 60 min, off (mpv has no such key).
        "t": .sleep(nil),
        // Loudness normalisation: on, tags, measured, off (mpv has no such key).
        "G": .loudness(nil),
        // Subtitles and tracks, as mpv has them.
        "v": .subtitle(.toggle), "j": .subtitle(.next), "#": .audioTrack(.next),
        "z": .subtitleDelay(.by(-0.1)), "Z": .subtitleDelay(.by(0.1)),
        "q": .quit, "escape": .quit,
    ])

    /// The command bound to `key`, if any.
    public func command(for key: Key) -> PlayerCommand? {
        Self.name(of: key).flatMap { bindings[$0] }
    }

    /// Binds `key` (a key name) to `command`, or unbinds it (nil).
    public mutating func bind(_ key: String, to command: PlayerCommand?) {
        bindings[key] = command
    }

    /// The keys a command line names, as `Key.name` spells them.
    public static let namedKeys = [
        "space", "left", "right", "up", "down", "pgup", "pgdn", "home", "end", "enter", "escape", "backspace", "tab",
        "ctrl+left", "ctrl+right", "ctrl+up", "ctrl+down",
    ]

    /// A key's name in a binding: the character itself ("9", "[", "A"), or
    /// one of `namedKeys`, or "ctrl+x"; nil for what cannot be bound (a click).
    public static func name(of key: Key) -> String? {
        switch key {
        case .character(" "): return "space"
        case let .character(character): return String(character)
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .pageUp: return "pgup"
        case .pageDown: return "pgdn"
        case .home: return "home"
        case .end: return "end"
        case .enter: return "enter"
        case .escape: return "escape"
        case .backspace: return "backspace"
        case .tab: return "tab"
        case let .control(letter): return "ctrl+\(letter)"
        case .controlLeft: return "ctrl+left"
        case .controlRight: return "ctrl+right"
        case .controlUp: return "ctrl+up"
        case .controlDown: return "ctrl+down"
        case .click, .wheel: return nil
        }
    }

    /// Whether `name` names a key (a single character, a named key, or
    /// ctrl+ and a letter).
    public static func isKeyName(_ name: String) -> Bool {
        if name.count == 1 || namedKeys.contains(name) { return true }
        // Ctrl and a letter, lower case: as both key decoders name it.
        if name.hasPrefix("ctrl+"), name.count == 6, let letter = name.last, letter.isLetter, letter.isLowercase { return true }
        return false
    }
}
