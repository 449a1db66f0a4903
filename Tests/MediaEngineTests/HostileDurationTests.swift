import Foundation
@testable import MediaEngine
import MediaModel
import Testing
import TestKit

/// A container that claims an absurd length: read as "length unknown",
/// never carried into a conversion that traps (MPRIS's Int64 microseconds
/// killed the background player on such a file).
@Suite struct HostileDurationTests {
    /// An ffmpeg-made Matroska file whose Segment Info duration is patched
    /// to 9.3e15 ms (past 2^63 µs).
    static func hugeDurationFile(in folder: TemporaryDirectory) async throws -> String {
        let path = try await Fixtures.make("hostile-base.mkv", ["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "flac"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The Duration element: ID 0x4489, an 8-byte float (size 0x88), big-endian.
        let index = try #require((0..<(bytes.count - 11)).first { bytes[$0] == 0x44 && bytes[$0 + 1] == 0x89 && bytes[$0 + 2] == 0x88 })
        let huge = (9.3e15).bitPattern.bigEndian
        withUnsafeBytes(of: huge) { raw in for offset in 0..<8 { bytes[index + 3 + offset] = raw[offset] } }
        let patched = folder.path + "/huge.mkv"
        try Data(bytes).write(to: URL(fileURLWithPath: patched))
        return patched
    }

    @Test func aHugeDurationIsUnknown() async throws {
        let folder = try TemporaryDirectory()
        let path = try await Self.hugeDurationFile(in: folder)
        let details = try MediaProbe.details(path: path)
        #expect(details.duration == nil, "\(String(describing: details.duration))")
        // It still plays, to its real end.
        let pcm = try await OracleTests.decode(path, video: false)
        #expect(pcm.state == .ended && pcm.pcm.count > 44100)
    }

    /// A picture or video size from a hostile header, fitted to a box.
    @Test func aHostileAspectFitsTheBox() {
        for aspect in [Double.nan, .infinity, 0, -1, 1e300, 1e-300] {
            let (width, height) = PictureDecoder.fittedSize(width: 640, height: 480, sampleAspect: aspect, maxWidth: 100, maxHeight: 100)
            #expect(width >= 1 && width <= 100 && height >= 1 && height <= 100, "\(aspect)")
        }
    }
}
