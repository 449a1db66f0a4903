import Foundation
import Synchronization
import TestKit

// SDL's disk driver writes each device buffer with fwrite, and glibc holds a
// 4 KiB write in its buffer until the next one: a device buffer of 1024
// stereo frames reached the file only with the next, 23 ms later, while
// mpv's 2048-frame buffers (SDL's default) are written at once. So "where
// the device was" at a request could not be read from the file's size, and
// a change looked a buffer late about half the time. The benchmark makes
// the file unbuffered for both players (a preloaded fopen), watches it grow
// and takes the wall time from a request to the moment the first sample
// at the new level is written, which is when the device takes it.

/// LD_PRELOAD for a program whose SDL disk file should be written at once.
enum UnbufferedDisk {
    static let library: String = {
        let folder = NSTemporaryDirectory() + "/mediaplay-bench-unbuffered-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/unbuffered.c"
        let library = folder + "/unbuffered.so"
        let code = """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            static FILE *unbuffered(FILE *file, const char *path) {
                const char *disk = getenv("SDL_DISKAUDIOFILE");
                if (file != NULL && disk != NULL && strcmp(path, disk) == 0) setvbuf(file, NULL, _IONBF, 0);
                return file;
            }
            FILE *fopen(const char *path, const char *mode) {
                FILE *(*real)(const char *, const char *) = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
                return unbuffered(real(path, mode), path);
            }
            FILE *fopen64(const char *path, const char *mode) {
                FILE *(*real)(const char *, const char *) = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen64");
                return unbuffered(real(path, mode), path);
            }

            """
        _ = FileManager.default.createFile(atPath: source, contents: Data(code.utf8))
        let compiled = measured("/usr/bin/cc", ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"])
        guard FileManager.default.fileExists(atPath: library) else { fatalError("cannot build the unbuffered-disk shim: \(compiled.stderr)") }
        return library
    }()

    static var environment: [String: String] { ["LD_PRELOAD": library] }
}

/// Watches a device file grow: when each size was first seen.
final class DeviceWatch: @unchecked Sendable {
    private let path: String
    private let seen = Mutex<[(time: Double, size: Int)]>([])
    private let running = Atomic<Bool>(true)

    init(_ path: String) {
        self.path = path
        let thread = Thread { [self] in
            var last = -1
            while running.load(ordering: .relaxed) {
                var info = stat()
                let size = stat(path, &info) == 0 ? Int(info.st_size) : 0
                if size != last {
                    let now = monotonic()
                    seen.withLock { $0.append((now, size)) }
                    last = size
                }
                usleep(200)
            }
        }
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// When the file first held more than `offset` bytes.
    func time(reaching offset: Int) -> Double? {
        seen.withLock { records in records.first { $0.size > offset }?.time }
    }

    var size: Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The byte offset, at `from` or after, of the first sample after which
    /// 2.5 ms of sound stay below 60 % of the level just before `from`.
    func levelDrop(after from: Int) -> Int? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let start = from / 2
        let window = 220  // 2.5 ms of stereo at 44.1 kHz
        guard start > 4410 else { return nil }
        let full = samples[start - 4410..<start].map { abs(Int($0)) }.max() ?? 0
        var index = start
        while index + window < samples.count {
            if (samples[index..<index + window].map { abs(Int($0)) }.max() ?? 0) < full * 6 / 10 { return index * 2 }
            index += 2
        }
        return nil
    }
}

/// Wall seconds from sending `change` to the device taking its first sample
/// at the new level, for each of `count` changes (`restore` between them).
func wallLatencies(_ watch: DeviceWatch, count: Int, change: () throws -> Void, restore: () throws -> Void) rethrows -> [Double] {
    var latencies: [Double] = []
    for _ in 0..<count {
        // Any moment of a device buffer's period, not the same each time.
        usleep(useconds_t.random(in: 0..<50_000))
        let from = watch.size
        let sent = monotonic()
        try change()
        usleep(150_000)
        guard let drop = watch.levelDrop(after: from), let heard = watch.time(reaching: drop) else { fatalError("the level never dropped") }
        latencies.append(max(0, heard - sent))
        try restore()
        // The full level again for the 0.1 s the next change compares with.
        usleep(300_000)
    }
    return latencies
}
