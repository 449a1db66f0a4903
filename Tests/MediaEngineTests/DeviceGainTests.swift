import Testing
@testable import MediaEngine

/// The gain the device applies as it plays: every sample times the factor,
/// rounded to the nearest (ties to even) and clipped, as plain arithmetic
/// would have it.
@Suite struct DeviceGainTests {
    @Test(arguments: [Float(0.5), 0.473, 1.25, 3, 31.6, 0.001])
    func everySampleIsScaledRoundedAndClipped(_ factor: Float) {
        var samples = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let expected = samples.map { sample -> Int16 in
            let exact = (Float(sample) * factor).rounded(.toNearestOrEven)
            return Int16(min(max(exact, -32768), 32767))
        }
        samples.withUnsafeMutableBytes { bytes in
            AudioRing.scale(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), samples: bytes.count / 2, by: factor)
        }
        #expect(samples == expected)
    }
}
