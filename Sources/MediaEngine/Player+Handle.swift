import MediaInterfaces

/// The engine's player is what the session drives (MediaInterfaces'
/// `PlayerHandle`).
extension Player: PlayerHandle {}
