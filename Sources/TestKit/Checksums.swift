import Foundation

/// SHA-256 by the coreutils `sha256sum` tool: an outside oracle for files.
public enum Checksums {
    public static func sha256sum(ofFile path: String) async throws -> String {
        let result = try await Fixtures.run("/usr/bin/sha256sum", [path])
        return String(String(decoding: result.stdout, as: UTF8.self).prefix(64))
    }

    public static func sha256sum(of bytes: [UInt8]) async throws -> String {
        let path = NSTemporaryDirectory() + "/sha-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await sha256sum(ofFile: path)
    }
}

/// `Checksums.sha256sum` of a file, by the names the tests use.
public func sha256(ofFile path: String) async throws -> String {
    try await Checksums.sha256sum(ofFile: path)
}

/// `Checksums.sha256sum` of bytes.
public func sha256(_ bytes: [UInt8]) async throws -> String {
    try await Checksums.sha256sum(of: bytes)
}
