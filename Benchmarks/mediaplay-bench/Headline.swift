import Foundation

/// One row of the table docs/PERFORMANCE.md opens with: a measure,
/// mediaplay's figure and the anchor's from the same run, their ratio, the
/// target, the date and the command. Each benchmark records its headline
/// rows into the file `MEDIAPLAY_BENCH_RESULTS` names (`make bench` sets it),
/// and `mediaplay-bench table` writes them into the document.
struct Headline: Codable {
    var measure: String
    var mediaplay: String
    var anchor: String
    var ratio: String
    var target: String
    var date: String
    var command: String
}

/// Records one headline row (nothing when `MEDIAPLAY_BENCH_RESULTS` is unset).
/// `ratio`: mediaplay over the anchor (a time or CPU: lower is better), or
/// as `ratioText` says.
func headline(_ measure: String, mediaplay: String, anchor: String, ratio: Double, target: String) {
    guard let path = ProcessInfo.processInfo.environment["MEDIAPLAY_BENCH_RESULTS"], !path.isEmpty else { return }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd"
    let row = Headline(
        measure: measure, mediaplay: mediaplay, anchor: anchor, ratio: String(format: "%.2f×", ratio), target: target,
        date: formatter.string(from: Date()), command: "mediaplay-bench " + CommandLine.arguments.dropFirst().joined(separator: " ")
    )
    guard var line = try? JSONEncoder().encode(row) else { return }
    line.append(0x0A)
    if let handle = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil) {
        handle.seekToEndOfFile()
        handle.write(line)
        try? handle.close()
    }
}

/// `mediaplay-bench table RESULTS DOC`: the recorded rows as the table
/// between DOC's bench-table markers (everything else in DOC kept).
func writeTable(results: String, document: String) throws {
    // In `make bench`'s order, whatever order they were recorded in (one
    // benchmark run again replaces its rows in place).
    let order = ["download", "playback", "control", "progressive", "feeds", "podcast", "folder", "resume", "controls", "terminal", "subtitles", "search", "loudness", "page", "mpd"]
    func benchmark(_ row: Headline) -> String { row.command.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
    func rank(_ row: Headline) -> Int { order.firstIndex(of: benchmark(row)) ?? order.count }
    let fresh = try String(contentsOfFile: results, encoding: .utf8).split(separator: "\n").map { line in
        try JSONDecoder().decode(Headline.self, from: Data(line.utf8))
    }
    // The rows already in DOC stand for the benchmarks not run this time:
    // one benchmark run alone replaces its own rows, not the table.
    let ran = Set(fresh.map(benchmark))
    let kept = (try? String(contentsOfFile: document, encoding: .utf8)).map(tableRows) ?? []
    let recorded = kept.filter { !ran.contains(benchmark($0)) } + fresh
    // A benchmark recorded again on a later day: only its newest rows.
    var newest: [String: String] = [:]
    for row in recorded { newest[row.command] = max(newest[row.command] ?? "", row.date) }
    let current = recorded.filter { $0.date == newest[$0.command] }
    let rows = current.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    let begin = "<!-- bench-table:begin"
    let end = "<!-- bench-table:end -->"
    let text = try String(contentsOfFile: document, encoding: .utf8)
    guard let start = text.range(of: begin), let stop = text.range(of: end), start.upperBound <= stop.lowerBound,
          let startLineEnd = text[start.upperBound...].firstIndex(of: "\n")
    else {
        throw BenchError("\(document) has no bench-table markers")
    }
    var table = "\n| measure | mediaplay | anchor (same run) | ratio | target | date | command |\n|---|---|---|---|---|---|---|\n"
    for row in rows {
        let cells = [row.measure, row.mediaplay, row.anchor, row.ratio, row.target, row.date, "`\(row.command)`"]
        table += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
    }
    let updated = String(text[..<text.index(after: startLineEnd)]) + table + "\n" + String(text[stop.lowerBound...])
    try updated.write(toFile: document, atomically: true, encoding: .utf8)
    print("\(document): the table has \(rows.count) rows")
}

/// The rows of the table between DOC's bench-table markers, read back.
func tableRows(_ text: String) -> [Headline] {
    guard let start = text.range(of: "<!-- bench-table:begin"), let stop = text.range(of: "<!-- bench-table:end -->"), start.upperBound <= stop.lowerBound else { return [] }
    return text[start.upperBound..<stop.lowerBound].split(separator: "\n").compactMap { line in
        guard line.hasPrefix("| "), line.hasSuffix(" |"), !line.hasPrefix("| measure |") else { return nil }
        let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ").map { $0.replacingOccurrences(of: "\\|", with: "|") }
        guard cells.count == 7, cells[6].hasPrefix("`"), cells[6].hasSuffix("`") else { return nil }
        return Headline(
            measure: cells[0], mediaplay: cells[1], anchor: cells[2], ratio: cells[3], target: cells[4], date: cells[5],
            command: String(cells[6].dropFirst().dropLast())
        )
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
