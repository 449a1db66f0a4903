import MediaModel

/// How the playlist goes on past items that fail: a file that cannot be
/// read or decoded, an entry that is missing, a download that fails. As in
/// mpv, the item gets its one line (its status) and the next one plays:
/// autoplay plays on past it, and `next` and `previous` step over it.
///
/// It keeps which starts decide for themselves what follows a failure (a
/// `toggle` answers with the error; `next` and `previous` step on, in their
/// own direction) until their item plays, and the items that failed since
/// something last played: a round that comes back to one of them ends
/// there, so a playlist of nothing but broken files stops instead of going
/// round for ever. A value the session holds under its lock.
struct PastFailures: Sendable {
    /// Starts whose caller handles a failure before the item plays.
    private var handledByCaller: Set<ItemKey> = []
    /// Items that failed since an item last played.
    private var failed: Set<ItemKey> = []

    /// A start whose caller says what follows its failure (a toggle, a step).
    mutating func callerHandles(_ key: ItemKey) {
        handledByCaller.insert(key)
    }

    /// The caller is done with its start: a failure from here on is the
    /// playlist's to go on past. `failedAlready`: its player has failed,
    /// and the caller saw it (the player's own word of it, which may come
    /// after this, changes nothing then).
    mutating func callerDone(_ key: ItemKey, failedAlready: Bool) {
        handledByCaller.remove(key)
        if failedAlready { failed.insert(key) }
    }

    /// A player's failure, as it reports it: whether the playlist goes on
    /// past it (its caller has not handled it, nor has anyone already).
    mutating func playerFailed(_ key: ItemKey) -> Bool {
        let handled = handledByCaller.contains(key) || failed.contains(key)
        failed.insert(key)
        return !handled
    }

    /// Whether a failure of `key` now is its caller's to handle.
    func isCallers(_ key: ItemKey) -> Bool {
        handledByCaller.contains(key)
    }

    /// An item played: every item may be tried again.
    mutating func played(_ key: ItemKey) {
        handledByCaller.remove(key)
        failed.removeAll()
    }

    /// `key` failed.
    mutating func failed(_ key: ItemKey) {
        failed.insert(key)
    }

    /// Whether `key` failed since an item last played (trying it again
    /// would go round).
    func hasFailed(_ key: ItemKey) -> Bool {
        failed.contains(key)
    }
}
