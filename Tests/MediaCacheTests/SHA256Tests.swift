import MediaCacheFolder
import Foundation
import MediaCache
import Testing
import TestKit

@Suite struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func matchesSha256sumOnAllLengthsAroundABlock() async throws {
        // Incremental updates split at every offset give the same digest as sha256sum.
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 300] {
            let slice = Array(bytes.prefix(length))
            let expected = try await Checksums.sha256sum(of: slice)
            var whole = SHA256()
            whole.update(slice)
            #expect(whole.finalizeHex() == expected, "length \(length)")
            var pieces = SHA256()
            pieces.update(Array(slice.prefix(length / 3)))
            pieces.update(Array(slice.dropFirst(length / 3)))
            #expect(pieces.finalizeHex() == expected, "length \(length) in two pieces")
        }
    }
}
