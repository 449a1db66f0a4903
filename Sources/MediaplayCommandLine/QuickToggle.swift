import Foundation
import MediaControl
import MediaFeed
import MediaModel
import MediaTerminal
import MediaplayCommon

/// `mediaplay toggle N` (and `--no-wait`), served before the argument parser
/// runs: it is the command a media key is bound to, so the whole process
/// should take a few milliseconds (docs/PERFORMANCE.md). The request and the
/// replies are written and read by hand, not with Codable: the program is
/// linked statically, and its first dynamic cast would make the Swift runtime
/// scan every protocol conformance in it (2–4 ms).
///
/// Until the request is sent, anything that is not the plain case returns
/// nil and the full `toggle` runs instead: another option, no background
/// player yet (the full command starts one), a runtime directory to complain
/// about. A background player of another feed refuses before doing anything,
/// so that returns nil too. Once it is sent, the outcome is reported here
/// exactly as the full command reports it (`ToggleCommand.report`).
public enum QuickToggle {
    /// The exit status, or nil: run the full command. `environment` looks
    /// a variable up (the process's own, from libc: building the whole
    /// dictionary would cost a conformance scan).
    public static func run(_ arguments: [String], environment: (String) -> String? = { CommandContext.current.variable($0) }) -> Int32? {
        guard arguments.count >= 3, arguments[1] == "toggle" else { return nil }
        var item: String?
        var noWait = false
        for word in arguments.dropFirst(2) {
            if word == "--no-wait" {
                noWait = true
            } else if !word.hasPrefix("-") && item == nil {
                item = word
            } else {
                return nil
            }
        }
        guard let item else { return nil }
        // A file or a URL (toggle ~/song.mp3) is the full command's.
        if item.contains("/") || item.hasPrefix("~") || item.contains(".") || item.contains(":") { return nil }
        // The feed named ($MEDIAPLAY_FEED), else the player's own (its queue).
        let named: String?
        do throws(CLIError) {
            named = try GlobalOptions.namedFeed(option: nil, environment)
        } catch {
            return nil
        }
        guard let client = try? ControlClient.connect(ControlPaths(runtimeDirectory: GlobalOptions.runtimeDirectory(option: nil, environment))) else { return nil }
        let request = Self.request(item: item, feed: named.map(BackgroundPlayer.feedIdentity(of:)), noWait: noWait)
        do throws(CLIError) {
            guard let status = try toggle(client, request: request) else { return nil }
            try ToggleCommand.report(status) { displayProblem(client) }
            return SysExit.ok.rawValue
        } catch {
            error.report()
            return error.exitCode.rawValue
        }
    }

    /// The request ToggleCommand sends (PROTOCOL.md), as one line.
    static func request(item: String, feed: String?, noWait: Bool) -> [UInt8] {
        var json = JSONWriter(pretty: false)
        json.beginObject()
        json.key(JSONWriter.Key("cmd")); json.string("toggle")
        json.key(JSONWriter.Key("expires")); json.number(ClientTimeout.expiry(after: ClientTimeout.seconds()))
        if let feed { json.key(JSONWriter.Key("feed")); json.string(feed) }
        json.key(JSONWriter.Key("id")); json.number(1)
        // ItemSelector's rule: a number is a position in the list, else an id.
        json.key(JSONWriter.Key("item"))
        if let number = Int(item) { json.number(number) } else { json.string(item) }
        if noWait { json.key(JSONWriter.Key("wait")); json.bool(false) }
        json.endObject()
        json.newlineAtEnd()
        return json.bytes
    }

    /// The item's new state; nil when the daemon plays another feed (it
    /// did nothing then).
    private static func toggle(_ client: ControlClient, request: [UInt8]) throws(CLIError) -> ItemStatus? {
        var progress: ProgressLine?
        defer { progress?.clear() }
        do throws(ControlClientError) {
            try client.send(line: request)
            while true {
                let line = try client.nextLine()
                guard let reply = try? JSONParser.parse(line).value else { throw unreadable(line) }
                if reply["event"] != nil {
                    if case .string("progress")? = reply["event"]?.value, let status = itemStatus(reply) {
                        if progress == nil { progress = ProgressLine(terminal: TerminalInfo.standardError()) }
                        progress?.show(status)
                    }
                    continue
                }
                // A reply without an id is for the connection (refused, too many clients).
                if case let .number(id)? = reply["id"]?.value, id != "1" { continue }
                if case .bool(true)? = reply["ok"]?.value {
                    guard let result = reply["result"]?.value, let status = itemStatus(result) else { throw unreadable(line) }
                    return status
                }
                // A refusal this client does not know is a protocol error, as ControlClient reads it.
                let error = reply["error"]?.value
                guard let code = string(error?["code"]).flatMap({ CommandError.Code(rawValue: $0) }), let message = string(error?["message"]) else {
                    throw unreadable(line)
                }
                if code == .wrongFeed { return nil }
                throw ControlClientError.refused(CommandError(code, message))
            }
        } catch {
            throw BackgroundPlayer.cliError(error)
        }
    }

    /// Why the background player shows no pictures (nil: it shows them).
    private static func displayProblem(_ client: ControlClient) -> String? {
        do throws(ControlClientError) {
            try client.send(line: Array(#"{"id":2,"cmd":"status"}"#.utf8) + [0x0A])
            while true {
                guard let reply = try? JSONParser.parse(try client.nextLine()).value else { return nil }
                if case .number("2")? = reply["id"]?.value { return string(reply["result"]?.value["display"]) }
            }
        } catch {
            return nil
        }
    }

    /// An ItemStatus from its JSON (PROTOCOL.md), as ModelJSON writes it.
    static func itemStatus(_ object: JSONValue) -> ItemStatus? {
        guard let item = number(object["item"]).flatMap({ Int(exactly: $0) }), let id = string(object["id"]),
              let title = string(object["title"]), let state = string(object["state"]).flatMap({ ItemState(rawValue: $0) })
        else { return nil }
        return ItemStatus(
            item: item, id: ItemKey(id), title: title, kind: string(object["kind"]).flatMap(MediaKind.init(name:)), state: state,
            position: number(object["position"]) ?? 0, duration: number(object["duration"]),
            progress: number(object["progress"]), error: string(object["error"])
        )
    }

    private static func string(_ value: JSONValue.Located?) -> String? {
        if case let .string(text)? = value?.value { return text }
        return nil
    }

    private static func number(_ value: JSONValue.Located?) -> Double? {
        if case let .number(text)? = value?.value { return Double(text) }
        return nil
    }

    private static func unreadable(_ line: [UInt8]) -> ControlClientError {
        .protocolError("the background player sent something that is not a reply: \(String(decoding: line.prefix(200), as: UTF8.self))")
    }
}
