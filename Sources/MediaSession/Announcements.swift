import MediaModel

/// The state last announced per item, so that a `state` event means a
/// change. A value the session holds under its lock, where the events are
/// also sent: every subscriber sees one order.
struct Announcements: Sendable {
    private var last: [ItemKey: ItemState] = [:]

    /// The event to send for `status` now that `kind` happened: a `state`
    /// event whenever its state differs from the last one sent, whatever
    /// happened; nil for a `state` that changed nothing.
    mutating func event(_ kind: ItemEvent.Kind, _ status: ItemStatus) -> ItemEvent? {
        if last[status.id] != status.state {
            last[status.id] = status.state
            return ItemEvent(.state, status)
        }
        return kind == .state ? nil : ItemEvent(kind, status)
    }

    /// Forgets the items `keep` says no to (gone from the feed).
    mutating func keep(where keep: (ItemKey) -> Bool) {
        last = last.filter { keep($0.key) }
    }
}
