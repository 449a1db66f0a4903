import Foundation

/// What the ffmpeg CLI decodes from a file with given arguments, made once
/// per machine and shared: the debug and sanitizer runs of one CI run, and
/// the tests that check one fixture alike, decode it once. Keyed by the
/// arguments, the identity (device, inode, size, modification time) of every
/// file they name (the input, a subtitle file in a filter) and of ffmpeg
/// itself, so a changed file or ffmpeg is decoded again.
enum ReferenceDecodings {
    static let folder: String = {
        let path = Fixtures.folder + "/references"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static let ffmpeg = "/usr/bin/ffmpeg"

    /// ffmpeg's standard output for `arguments`, from the store or made now.
    static func output(of arguments: [String]) async throws -> [UInt8] {
        let path = folder + "/" + key(arguments)
        if let kept = FileManager.default.contents(atPath: path) { return [UInt8](kept) }
        let result = try await Fixtures.run(ffmpeg, arguments)
        guard result.status == 0 else {
            throw Fixtures.FixtureError(message: "ffmpeg \(arguments.joined(separator: " ")) failed: \(String(decoding: result.stderr, as: UTF8.self))")
        }
        // Written aside, then renamed: tests run in parallel.
        let temporary = folder + "/.tmp-\(UUID().uuidString)"
        if FileManager.default.createFile(atPath: temporary, contents: Data(result.stdout)) { _ = rename(temporary, path) }
        return result.stdout
    }

    /// A name for the decoding: a 64-bit FNV-1a of its description, twice
    /// (two offsets) so that a collision needs both to collide.
    static func key(_ arguments: [String]) -> String {
        var description = identity(ffmpeg)
        for argument in arguments {
            description += "\u{0}" + argument
            // Files named by an argument or inside a filter (subtitles=PATH:si=0).
            for part in argument.split(whereSeparator: { "=:,'".contains($0) }) where part.hasPrefix("/") {
                description += "\u{1}" + identity(String(part))
            }
        }
        return hex(fnv(description, basis: 0xcbf2_9ce4_8422_2325)) + hex(fnv(description, basis: 0x8422_2325_cbf2_9ce4))
    }

    private static func identity(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "" }
        return "\(status.st_dev).\(status.st_ino).\(status.st_size).\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
    }

    private static func fnv(_ text: String, basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
