import Foundation
import MediaplayCommandLine
import MediaCache
import MediaFeed
import MediaInterfaces
import MediaTerminal

/// Shows the downloads of `mediaplay fetch`: on a terminal, one live line per
/// item with a spinner, percent, size and rate (redrawn at most 12 times a
/// second, and only while something moves); elsewhere, one line per state
/// change.
package actor FetchDisplay {
    enum RowState: Equatable {
        case queued
        case active(DownloadProgress)
        case done(size: Int64?, alreadyCached: Bool, local: Bool)
        case failed(String)
    }

    struct Row {
        var item: FeedItem
        var state: RowState
        var started: Double?
    }

    private var rows: [Row]
    private let terminal: TerminalInfo
    private let region: LiveRegion?
    private var tick = 0
    private var ticker: Task<Void, Never>?
    private var lastPhase: [Int: String] = [:]

    init(items: [FeedItem], terminal: TerminalInfo) {
        rows = items.map { Row(item: $0, state: .queued) }
        self.terminal = terminal
        region = terminal.animates ? LiveRegion(width: terminal.width) : nil
    }

    func start() {
        guard region != nil else { return }
        redraw()
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(83))
                await self?.animate()
            }
        }
    }

    func update(_ item: FeedItem, _ state: RowState) {
        guard let index = rows.firstIndex(where: { $0.item.position == item.position }) else { return }
        if rows[index].started == nil, case .active = state { rows[index].started = ProcessInfo.processInfo.systemUptime }
        rows[index].state = state
        if region == nil { logChange(rows[index]) }
    }

    func finish() {
        ticker?.cancel()
        ticker = nil
        if region != nil { redraw() }
    }

    private func animate() {
        tick += 1
        redraw()
    }

    private func redraw() {
        region?.draw(rows.map(line))
    }

    private func label(_ item: FeedItem) -> String {
        "\(item.position) \"\(DisplayWidth.singleLine(item.title))\""
    }

    private func line(_ row: Row) -> String {
        let colors = terminal.colors
        let name = label(row.item)
        switch row.state {
        case .queued:
            return Style.dim.apply("· \(name)  queued", enabled: colors)
        case let .active(progress):
            var text = "\(Spinner.frame(tick)) \(name)  "
            switch progress.phase {
            case .waiting:
                text += "waiting for another mediaplay process"
            case .connecting:
                text += "connecting"
            case let .retrying(attempt, reason):
                text += "retrying (try \(attempt)): \(reason)"
            case .downloading:
                if let fraction = progress.fraction {
                    text += "\(Int(fraction * 100))%  \(formatByteCount(progress.received))/\(formatByteCount(progress.total ?? 0))"
                } else {
                    text += formatByteCount(progress.received)
                }
                if progress.bytesPerSecond > 0 { text += "  \(formatRate(progress.bytesPerSecond))" }
            }
            return text
        case let .done(size, alreadyCached, local):
            let what = local ? "local file" : alreadyCached ? "already cached" : "cached"
            return Style.green.apply("✓", enabled: colors) + " \(name)  \(what)" + (size.map { " \(formatByteCount($0))" } ?? "")
        case let .failed(reason):
            return Style.red.apply("✗ \(name)  failed: \(reason)", enabled: colors)
        }
    }

    /// Off a terminal: a line when the phase changes, never per byte.
    private func logChange(_ row: Row) {
        let phase: String
        var text: String
        switch row.state {
        case .queued:
            return
        case let .active(progress):
            switch progress.phase {
            case .waiting: phase = "waiting"; text = "waiting for another mediaplay process"
            case .connecting: phase = "connecting"; text = "downloading"
            case .downloading: phase = "connecting"; text = "downloading"
            case let .retrying(attempt, reason): phase = "retry\(attempt)"; text = "retrying (try \(attempt)): \(reason)"
            }
        case let .done(size, alreadyCached, local):
            phase = "done"
            text = (local ? "local file" : alreadyCached ? "already cached" : "cached") + (size.map { " \(formatByteCount($0))" } ?? "")
            if !alreadyCached, !local, let started = row.started, let size {
                let seconds = max(0.001, ProcessInfo.processInfo.systemUptime - started)
                text += " in \(String(format: "%.1f", seconds)) s (\(formatRate(Double(size) / seconds)))"
            }
        case let .failed(reason):
            phase = "failed"
            text = "failed: \(reason)"
        }
        guard lastPhase[row.item.position] != phase else { return }
        lastPhase[row.item.position] = phase
        StandardStream.error("\(label(row.item)): \(DisplayWidth.escaped(text))\n")
    }
}
