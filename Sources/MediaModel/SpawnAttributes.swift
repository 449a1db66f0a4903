#if canImport(Glibc)
import Glibc
#endif

/// `posix_spawn`'s attributes for a child that starts as from a shell: no
/// signal blocked and every signal at its default action, whatever the
/// spawning thread had (both are inherited across exec: a child started by
/// a thread that blocks SIGTERM, or by a process that ignores SIGPIPE, would
/// never hear them), plus a process group (`.ownGroup`) or a session
/// (`.ownSession`) of its own.
public struct SpawnAttributes: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// A process group of its own, led by the child: ended with it as one.
    public static let ownGroup = SpawnAttributes(rawValue: Int32(POSIX_SPAWN_SETPGROUP))
    /// A session of its own (POSIX_SPAWN_SETSID, which glibc declares only
    /// under _GNU_SOURCE): no controlling terminal.
    public static let ownSession = SpawnAttributes(rawValue: 0x80)

    /// Calls `body` with the attributes made, and destroys them after.
    public func with<Result>(_ body: (inout posix_spawnattr_t) -> Result) -> Result {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        if contains(.ownGroup) { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(&attributes, Int16(rawValue | Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))
        return body(&attributes)
    }
}
