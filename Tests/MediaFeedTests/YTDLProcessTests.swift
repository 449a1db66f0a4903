import CLinux
import Foundation
import Glibc
import MediaInterfaces
import MediaPages
import Testing
import TestKit

/// How yt-dlp is run (issue 46, review S7): in a process group of its own,
/// ended as a group (SIGTERM, then SIGKILL) when its time is up, even when
/// it and its children ignore SIGTERM and a child holds its output open;
/// ended at once by a stop; never given a password on its command line;
/// "install yt-dlp" only when there is no program to run. A shell script
/// stands in for yt-dlp (`ytdl-path`), doing what a stuck one does.
@Suite(.timeLimit(.minutes(1))) struct YTDLProcessTests {
    let page = URL(string: "http://127.0.0.1:9/watch")!

    func script(_ folder: TemporaryDirectory, _ body: String) async throws -> String {
        let path = folder.path + "/yt-dlp"
        try await Fixtures.executable(path, contents: Array(("#!/bin/sh\n" + body + "\n").utf8))
        return path
    }

    /// Whether the process named in `pidFile` ends: its pidfd becomes
    /// readable (the event of its end; the bound only keeps a failing test
    /// from hanging), or it is gone already.
    static func ends(_ pidFile: String) throws -> Bool {
        let text = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(Int32(text))
        let descriptor = mp_pidfd_open(pid)
        if descriptor < 0 { return errno == ESRCH }
        defer { close(descriptor) }
        var wanted = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&wanted, 1, 20_000) == 1
    }

    @Test func pastItsTimeTheWholeGroupIsEnded() async throws {
        let folder = try TemporaryDirectory()
        // It and its child ignore SIGTERM; the child holds stdout open.
        let program = try await script(folder, """
            trap '' TERM
            sh -c 'echo $$ > \(folder.path)/child; exec sleep 1000' &
            echo $$ > \(folder.path)/parent
            while :; do sleep 1000; done
            """)
        let ytdl = YTDL(program: program, timeout: 1)
        let page = page
        let result = await offPool { () -> Result<ResolvedPage, PageError> in Result { () throws(PageError) in try ytdl.resolve(page) } }
        guard case let .failure(.failed(message)) = result else { Issue.record("\(result)"); return }
        #expect(message.contains("within 1 s"), "\(message)")
        #expect(try Self.ends(folder.path + "/child"))
        #expect(try Self.ends(folder.path + "/parent"))
    }

    @Test func aStopEndsItAtOnce() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.path + "/started"
        #expect(mkfifo(fifo, 0o600) == 0)
        let program = try await script(folder, """
            sh -c 'echo $$ > \(folder.path)/child; echo go > \(fifo); exec sleep 1000' &
            wait
            """)
        let ytdl = YTDL(program: program, timeout: 600)
        let cancellation = PageCancellation()
        let page = page
        async let result = offPool { () -> Result<ResolvedPage, PageError> in
            Result { () throws(PageError) in try ytdl.resolve(page, cancellation: cancellation) }
        }
        // The script has begun once it writes to the FIFO (this read waits for it).
        let started = await offPool { () -> String in
            String(decoding: FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        }
        #expect(!started.isEmpty)
        cancellation.cancel()
        guard case let .failure(.failed(message)) = await result else { Issue.record("not stopped"); return }
        #expect(message.hasPrefix("stopped"), "\(message)")
        #expect(try Self.ends(folder.path + "/child"))
    }

    @Test func aPasswordNeverReachesItsCommandLine() async throws {
        let folder = try TemporaryDirectory()
        let program = try await script(folder, "echo \"$@\" > \(folder.path)/arguments\necho '{}'")
        let ytdl = YTDL(program: program)
        let secret = URL(string: "http://alice:s3cr3t@127.0.0.1:9/watch")!
        #expect {
            try ytdl.resolve(secret)
        } throws: { error in
            guard case let .refused(message) = error as? PageError else { return false }
            return message.contains("~/.netrc") && !message.contains("s3cr3t")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/arguments"))
    }

    @Test func onlyAMissingProgramIsTheInstallLine() async throws {
        let folder = try TemporaryDirectory()
        // Executable, but no program the kernel can run.
        let path = folder.path + "/yt-dlp"
        try await Fixtures.executable(path, contents: [0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 3])
        let page = page
        let broken = await offPool { () -> Result<ResolvedPage, PageError> in Result { () throws(PageError) in try YTDL(program: path).resolve(page) } }
        guard case let .failure(.failed(message)) = broken else { Issue.record("\(broken)"); return }
        #expect(message.hasPrefix("cannot run yt-dlp (\(path)):"), "\(message)")
        #expect(throws: PageError.noResolver) { try YTDL(program: folder.path + "/none").resolve(page) }
    }
}
