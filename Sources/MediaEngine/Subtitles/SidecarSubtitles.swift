import Foundation
import MediaInterfaces

/// Subtitle files beside a local item, found as mpv and VLC find them:
/// the item's name with `.srt`, `.vtt`, `.ass` or `.ssa` for its extension,
/// or with a language between (`movie.en.srt`, `movie.pt-BR.vtt`).
extension SidecarSubtitles {
    public static let extensions: Set<String> = ["srt", "vtt", "ass", "ssa"]

    /// The sidecars of `mediaPath`, the one without a language first, then
    /// by name: one listing of its folder.
    public static func find(besides mediaPath: String) -> [File] {
        let url = URL(fileURLWithPath: mediaPath)
        let folder = url.deletingLastPathComponent().path
        let base = url.deletingPathExtension().lastPathComponent
        guard !base.isEmpty, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: [File] = []
        for name in names where name.hasPrefix(base + ".") {
            let rest = name.dropFirst(base.count + 1)
            let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
            guard let last = parts.last, extensions.contains(last.lowercased()) else { continue }
            let language: String?
            switch parts.count {
            case 1: language = nil
            case 2 where languageCode(parts[0]) != nil:
                language = languageCode(parts[0])
            default: continue
            }
            let path = (folder as NSString).appendingPathComponent(name)
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append(File(path: path, language: language))
        }
        return found.sorted { ($0.language != nil ? 1 : 0, $0.path) < ($1.language != nil ? 1 : 0, $1.path) }
    }
}
