import MediaModel

extension ControlClient {
    /// Asks for `command` and reads the reply in the shape the command's
    /// definition names (`PlayerCommand.definition`): no caller picks a
    /// reply type of its own.
    public func perform(_ command: PlayerCommand, onEvent: (ItemEvent) -> Void = { _ in }) throws(ControlClientError) -> PlayerOutcome {
        try perform(ControlRequest(command), reply: command.definition.reply, onEvent: onEvent)
    }

    /// A request that carries commands (or only asks, as a bare `volume`
    /// does), its reply read in `reply`'s shape.
    public func perform(_ request: ControlRequest, reply: PlayerCommand.Reply, onEvent: (ItemEvent) -> Void = { _ in }) throws(ControlClientError) -> PlayerOutcome {
        switch reply {
        case .item: .item(try call(request, as: ItemStatus.self, onEvent: onEvent))
        case .itemIfAny: .item(try call(request, as: StopResult.self, onEvent: onEvent).stopped)
        case .audio: .audio(try call(request, as: AudioSettings.self, onEvent: onEvent))
        case .playlist: .playlist(try call(request, as: PlaylistMode.self, onEvent: onEvent))
        case .sleep: .sleep(try call(request, as: SleepStatus.self, onEvent: onEvent))
        }
    }
}

extension PlayerOutcome {
    /// The reply line that carries this outcome (what `ControlClient.perform`
    /// reads back): an item's status, or `{}` when no item was active.
    public func replyLine(_ id: Int?) -> [UInt8] {
        switch self {
        case let .item(status?): ControlJSON.line(ControlReply.success(id, status))
        case .item(nil): ControlJSON.line(ControlReply.success(id, StopResult(stopped: nil)))
        case let .audio(settings): ControlJSON.line(ControlReply.success(id, settings))
        case let .playlist(mode): ControlJSON.line(ControlReply.success(id, mode))
        case let .sleep(status): ControlJSON.line(ControlReply.success(id, status))
        }
    }
}
