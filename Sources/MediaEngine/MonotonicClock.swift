import Foundation

/// CLOCK_MONOTONIC, the one time base of the engine (wall-clock jumps never
/// move playback); cheap enough for SDL's audio callback (a vDSO call).
enum MonotonicClock {
    static func nanoseconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
    }

    static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }
}
