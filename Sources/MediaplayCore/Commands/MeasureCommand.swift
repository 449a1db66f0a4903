import ArgumentParser
import CLinux
import Foundation
import MediaCacheCommands
import MediaCacheFolder
import MediaFeed
import MediaFeedLoading
import MediaModel
import MediaplayCommandLine
import MediaSession
import MediaTerminal
import MediaWiring
import MediaplayCommon

/// `mediaplay measure`: the loudness of files, measured now (it is otherwise
/// measured in the background, once per file, when one is first listed,
/// played or downloaded).
struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Measure the loudness of items' files now (EBU R128), for normalisation.",
        discussion: """
            Each audio or video file at hand (a local file, or one in the cache) is \
            measured once, as ffmpeg's ebur128 filter measures it: integrated \
            loudness, loudness range and true peak, kept in the cache's index with \
            the file's details (list --json shows them as media.loudness). mediaplay \
            does this by itself in the background when a file is first listed, played \
            or downloaded; measure does it at once, with progress. Without items, the \
            whole feed. A file measured already is skipped.

            Examples:
              mediaplay measure
              mediaplay measure 3 4
              mediaplay measure ~/Music/Album
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Every item of the feed (the default without items).")
    var all = false

    @Flag(name: .long, help: ArgumentHelp("Run quietly at idle priority, after any other measurement (how mediaplay starts it).", visibility: .hidden))
    var background = false

    @Argument(help: ArgumentHelp("Item numbers or ids, or files and folders.", valueName: "n|id|path"))
    var targets: [String] = []

    func run() throws {
        if background { mp_idle_priority() }
        try runReportingErrors {
            let groups = try itemGroups()
            let folder: CacheFolder
            do {
                folder = try CacheFolder(directory: global.cacheDirectory)
            } catch {
                throw CLIError("cannot open the cache at \(global.cacheDirectory): \(error)", exitCode: .ioError)
            }
            // One measurement at a time on this machine: a second one waits,
            // then finds measured what the first did.
            let lock = open(global.cacheDirectory + "/measure.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if lock >= 0 {
                if background { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} } else if flock(lock, LOCK_EX | LOCK_NB) != 0 {
                    StandardStream.error("mediaplay: waiting for another measurement to finish\n")
                    while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
                }
            }
            defer { if lock >= 0 { close(lock) } }
            // Ctrl-C or SIGTERM: the file being measured is dropped, every
            // one measured before it is kept.
            let signals = background ? nil : StopOnSignals { _ in }
            defer { signals?.cancel() }
            let terminal = TerminalInfo.standardError()
            let live = !background && terminal.animates ? LiveRegion(output: STDERR_FILENO, width: terminal.width) : nil
            var measured = 0
            var current: FeedItem?
            var step = ""
            for items in groups {
                measured += LoudnessMeasuring.run(items, folder: folder) { report in
                    guard signals?.signalNumber == nil else { return false }
                    guard !background else { return true }
                    switch report {
                    case let .started(item, number, count):
                        current = item
                        step = "\(number)/\(count)"
                        live?.draw(["measuring \(step) \(Self.name(item))"])
                    case let .progress(seconds):
                        if let current { live?.draw(["measuring \(step) \(Self.name(current)) \(StatusText.clock(seconds))"]) }
                    case let .finished(item, loudness, failure):
                        live?.draw([])
                        StandardStream.line(Self.line(item, loudness, failure))
                        fflush(nil)
                    }
                    return true
                }
            }
            live?.draw([])
            if let number = signals?.signalNumber { throw ExitCode(128 + number) }
            if measured == 0 && !background { StandardStream.line("nothing to measure: every audio or video file at hand is measured") }
        }
    }

    private static func name(_ item: FeedItem) -> String {
        DisplayWidth.escaped("\(item.position) \"\(DisplayWidth.singleLine(item.title))\"")
    }

    /// `3 "Song": -14.2 LUFS, range 6.1 LU, true peak -0.8 dBTP`.
    static func line(_ item: FeedItem, _ loudness: Loudness?, _ failure: String?) -> String {
        guard let loudness else { return name(item) + ": " + (failure.map { DisplayWidth.escaped($0) } ?? "no sound to measure") }
        return name(item) + String(format: ": %.1f LUFS, range %.1f LU, true peak %.1f dBTP", loudness.integrated, loudness.range, loudness.truePeak)
    }

    /// The items to measure, feed by feed: the feed's (all, or by number
    /// and id), a folder's, or a file alone.
    private func itemGroups() throws(CLIError) -> [[FeedItem]] {
        if targets.isEmpty || all {
            return [try FeedLoading.load(global, announce: false).feed.items]
        }
        var groups: [[FeedItem]] = []
        var selectors: [String] = []
        for target in targets {
            let path = absolutePath(target)
            var isFolder: ObjCBool = false
            guard target.contains("/") || target.hasPrefix("."), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                selectors.append(target)
                continue
            }
            if isFolder.boolValue || FeedDecoder.isFeedFile(path) {
                groups.append(try FeedLoading.load(path, cacheDirectory: global.cacheDirectory, announce: false).feed.items)
            } else {
                groups.append(Feed.single(.file(path)).items)
            }
        }
        if !selectors.isEmpty {
            let feed = try FeedLoading.load(global, announce: false).feed
            groups.append(try ItemSelection.resolve(selectors, in: feed))
        }
        return groups
    }
}
