import Foundation

/// A time as messages show it: `2026-11-22 14:05` in the local time zone
/// (an offline notice's "as of", the cache's last use).
public enum LocalTime {
    public static func text(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
