import Foundation

/// A size as users write it ("500M", "4G", "1.5GiB", "1048576"): `fetch
/// --max-size` and config.toml's `[cache] max-size` read it the same way.
public enum ByteSize {
    /// The size in bytes; nil for anything else, and for a size that does
    /// not fit (it is clamped before any conversion: "1e30G" was a trap).
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
            .replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        guard let last = trimmed.last else { return nil }
        let multipliers: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        if let multiplier = multipliers[last] {
            guard let number = Double(trimmed.dropLast()), number.isFinite, number > 0, number * multiplier < 0x1p62 else { return nil }
            return Int64(number * multiplier)
        }
        guard let number = Int64(trimmed), number > 0 else { return nil }
        return number
    }
}
