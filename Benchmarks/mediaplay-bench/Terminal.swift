import Foundation
import TestKit

/// Video in the terminal beside mpv's `--vo=tct`: the 1080p30 20 s clip
/// played in a tmux pane of 160×45 (a real pseudo-terminal that parses
/// every byte), colour blocks for both, no audio device (mpv `--ao=null`,
/// ours SDL's disk driver to /dev/null). CPU and peak RSS from GNU time.
func terminalBenchmark(runs: Int) async throws {
    let clip = try await Fixtures.make("bench-1080p30-h264-aac-20s.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20",
        "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest",
    ])
    func run(_ command: [String]) async throws -> (wall: Double, cpu: Double, rssMiB: Double) {
        let folder = try TemporaryDirectory()
        let times = folder.path + "/time.txt"
        let terminal = try await TerminalSession(
            columns: 160, rows: 45, ["/usr/bin/time", "-o", times, "-f", "%e %U %S %M"] + command,
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": "/dev/null"]
        )
        guard await terminal.waitForExit(timeout: 60)?.status == 0,
              let fields = try? String(contentsOfFile: times, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap({ Double($0) }),
              fields.count == 4
        else { fatalError("\(command[0]) did not play the clip in the terminal") }
        return (fields[0], fields[1] + fields[2], fields[3] / 1024)
    }
    var theirs: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    var ours: [(wall: Double, cpu: Double, rssMiB: Double)] = []
    for _ in 1...runs {
        theirs.append(try await run(["/usr/bin/mpv", "--no-config", "--vo=tct", "--ao=null", clip]))
        ours.append(try await run([mediaplay, "play", clip, "--vo", "terminal", "--images", "blocks"]))
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
    print("")
}
