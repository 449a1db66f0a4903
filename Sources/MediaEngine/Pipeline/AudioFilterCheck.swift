import CFFmpeg
import Foundation

/// Checks a user's audio filter chain (`--af`, `[playback] af`) before
/// anything plays: nil when libavfilter builds it for stereo sound, else one
/// line naming the filter it refused.
public enum AudioFilterCheck {
    public static func problem(_ chain: String) -> String? {
        let api: mp_avfilter_api
        switch AudioGraph.library {
        case let .success(loaded): api = loaded
        case let .failure(error): return error.message
        }
        let filters = Self.filters(in: chain)
        if filters.isEmpty { return "the chain \"\(chain)\" names no filter" }
        for (name, _) in filters where api.get_by_name(name) == nil {
            return "libavfilter has no filter \"\(name)\" (ffmpeg -filters lists them)"
        }
        // The whole chain, on a test frame of stereo sound.
        let frame = Frame()
        let f = frame.pointer
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.sample_rate = 44100
        av_channel_layout_default(&f.pointee.ch_layout, 2)
        do {
            _ = try AudioGraph(chain: { _ in chain }, for: f)
            return nil
        } catch {
            // Which filter: the first that will not take its options alone.
            for (name, options) in filters {
                if let problem = Self.refusal(api, name, options) { return problem }
            }
            return "libavfilter refused the chain \"\(chain)\": \((error as? FFmpegError)?.message ?? "\(error)") (an audio filter chain, as ffmpeg -af takes it)"
        }
    }

    /// Each filter's name and options, in order: the chain split at its
    /// top-level commas and semicolons, [labels] dropped.
    static func filters(in chain: String) -> [(name: String, options: String?)] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in chain {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true; current.append(character)
            case "'": quoted.toggle(); current.append(character)
            case "," where !quoted, ";" where !quoted: parts.append(current); current = ""
            default: current.append(character)
            }
        }
        parts.append(current)
        return parts.compactMap { part in
            var text = part.trimmingCharacters(in: .whitespaces)
            // Leading and trailing link labels: [in]filter=…[out].
            while text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = String(text[text.index(after: end)...]).trimmingCharacters(in: .whitespaces) }
            while text.hasSuffix("]"), let start = text.lastIndex(of: "[") { text = String(text[..<start]).trimmingCharacters(in: .whitespaces) }
            guard !text.isEmpty else { return nil }
            if let equals = text.firstIndex(of: "=") {
                return (String(text[..<equals]), String(text[text.index(after: equals)...]))
            }
            return (text, nil)
        }
    }

    private static func refusal(_ api: mp_avfilter_api, _ name: String, _ options: String?) -> String? {
        var graph = api.graph_alloc()
        guard graph != nil else { return nil }
        defer { api.graph_free(&graph) }
        var context: UnsafeMutablePointer<AVFilterContext>?
        let result = api.graph_create_filter(&context, api.get_by_name(name), "check", options, nil, graph)
        guard result < 0 else { return nil }
        let reason = FFmpegError(code: result, context: "").message
        return "libavfilter's \"\(name)\" refused its options \"\(options ?? "")\": \(reason)"
    }
}
