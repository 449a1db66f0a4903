import Foundation
import TestKit

/// Video in the terminal beside mpv's `--vo=tct`: the 1080p30 20 s clip
/// played in a tmux pane of 160×45 (a real pseudo-terminal that parses
/// every byte), colour blocks for both, no audio device (mpv `--ao=null`,
/// ours SDL's disk driver to /dev/null). CPU and peak RSS from GNU time.
/// Then the cost of subtitles: the same clip with a subtitle always showing
/// (two lines, a new cue every second), beside it without, in the terminal
/// and in a window (SDL's dummy video driver: decoding, libass drawing them
/// in, scaling and presenting, no display to wait for).
func terminalBenchmark(runs: Int) async throws {
    let clip = try await Fixtures.make("bench-1080p30-h264-aac-20s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20",
        "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest",
    ])
    func run(_ command: [String], environment: [String: String] = [:]) async throws -> (wall: Double, cpu: Double, rssMiB: Double) {
        let folder = try TemporaryDirectory()
        let times = folder.path + "/time.txt"
        let terminal = try await TerminalSession(
            columns: 160, rows: 45, ["/usr/bin/time", "-o", times, "-f", "%e %U %S %M"] + command,
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"].merging(environment) { $1 }
        )
        guard await terminal.waitForExit(timeout: 60)?.status == 0,
              let fields = try? String(contentsOfFile: times, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap({ Double($0) }),
              fields.count == 4
        else { fatalError("\(command[0]) did not play the clip in the terminal") }
        return (fields[0], fields[1] + fields[2], fields[3] / 1024)
    }
    // A cue every second for the whole clip, two lines each.
    let folder = try TemporaryDirectory()
    let cues = folder.path + "/cues.srt"
    try Data((0..<20).map { second in
        String(format: "%d\n00:00:%02d,000 --> 00:00:%02d,950\nSubtitle number %d, a line of words\nand a second line under it\n\n", second + 1, second, second, second + 1)
    }.joined().utf8).write(to: URL(fileURLWithPath: cues))
    var theirs: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    var ours: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    var subtitled: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    var window: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    var windowSubtitled: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    let inWindow = ["SDL_VIDEODRIVER": "dummy"]
    for index in 1...runs {
        theirs.append(try await run(["/usr/bin/mpv", "--no-config", "--vo=tct", "--ao=null", clip]))
        // With and without subtitles, in turns that swap which goes first.
        let pairs: [() async throws -> Void] = [
            { ours.append(try await run([mediaplay, "play", clip, "--vo", "terminal", "--images", "blocks"])) },
            { subtitled.append(try await run([mediaplay, "play", clip, "--vo", "terminal", "--images", "blocks", "--sub-file", cues])) },
        ]
        for turn in index % 2 == 0 ? pairs.reversed() : pairs { try await turn() }
        let windows: [() async throws -> Void] = [
            { window.append(try await run([mediaplay, "play", clip, "--vo", "window"], environment: inWindow)) },
            { windowSubtitled.append(try await run([mediaplay, "play", clip, "--vo", "window", "--sub-file", cues], environment: inWindow)) },
        ]
        for turn in index % 2 == 0 ? windows.reversed() : windows { try await turn() }
    }
    print("Terminal video: the 1080p30 20 s clip in a 160×45 tmux pane, colour blocks, medians of \(runs)")
    print("")
    print("| run | wall | CPU | vs mpv | peak RSS |")
    print("|---|---|---|---|---|")
    let theirCPU = median(theirs.map(\.cpu))
    print(String(format: "| `mpv --vo=tct --ao=null` | %.2f s | %.2f s | 1.00× | %.0f MiB |", median(theirs.map(\.wall)), theirCPU, median(theirs.map(\.rssMiB))))
    print(String(format: "| `mediaplay play --vo terminal` | %.2f s | %.2f s | %.2f× | %.0f MiB |", median(ours.map(\.wall)), median(ours.map(\.cpu)), median(ours.map(\.cpu)) / theirCPU, median(ours.map(\.rssMiB))))
    headline(
        "terminal video, 1080p30 20 s in 160×45 (CPU)", mediaplay: String(format: "%.2f s", median(ours.map(\.cpu))),
        anchor: String(format: "mpv --vo=tct %.2f s", theirCPU), ratio: median(ours.map(\.cpu)) / theirCPU, target: "none"
    )
    let plainCPU = median(ours.map(\.cpu)), subtitledCPU = median(subtitled.map(\.cpu))
    let windowCPU = median(window.map(\.cpu)), windowSubtitledCPU = median(windowSubtitled.map(\.cpu))
    print(String(format: "| `mediaplay play --vo terminal --sub-file` (a subtitle always showing) | %.2f s | %.2f s | %.2f× of without | %.0f MiB |", median(subtitled.map(\.wall)), subtitledCPU, subtitledCPU / plainCPU, median(subtitled.map(\.rssMiB))))
    print(String(format: "| `mediaplay play --vo window` (SDL dummy driver) | %.2f s | %.2f s | | %.0f MiB |", median(window.map(\.wall)), windowCPU, median(window.map(\.rssMiB))))
    print(String(format: "| `mediaplay play --vo window --sub-file` (libass drawing them in) | %.2f s | %.2f s | %.2f× of without | %.0f MiB |", median(windowSubtitled.map(\.wall)), windowSubtitledCPU, windowSubtitledCPU / windowCPU, median(windowSubtitled.map(\.rssMiB))))
    headline(
        "terminal video with subtitles showing (CPU)", mediaplay: String(format: "%.2f s", subtitledCPU),
        anchor: String(format: "without %.2f s", plainCPU), ratio: subtitledCPU / plainCPU, target: "≤ 1.05×"
    )
    headline(
        "window video with subtitles drawn in (CPU)", mediaplay: String(format: "%.2f s", windowSubtitledCPU),
        anchor: String(format: "without %.2f s", windowCPU), ratio: windowSubtitledCPU / windowCPU, target: "≤ 1.10×"
    )
    print("")
}
