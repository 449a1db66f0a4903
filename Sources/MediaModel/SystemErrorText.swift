import Foundation

/// An error from Foundation's file calls as a person reads it: the system's
/// own words for the errno beneath (`Is a directory`), never "The operation
/// could not be completed. (NSCocoaErrorDomain error 256.)".
public enum SystemErrorText {
    public static func describe(_ error: any Error) -> String {
        let nested = error as NSError
        if let underlying = nested.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nested.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nested.code))) }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if nested.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: nested.code) {
            case .fileReadNoSuchFile, .fileNoSuchFile: return String(cString: strerror(ENOENT))
            case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
            case .fileReadInapplicableStringEncoding, .fileReadCorruptFile: return "it is not UTF-8 text"
            case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
            case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
            default: return "it cannot be read or written (error \(nested.code))"
            }
        }
        return "\(error)"
    }

    /// What is at `path`, when that explains a failed read better than the
    /// error does: "it is a folder", "it is not a regular file".
    public static func kind(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "it is a folder"
        default: return "it is not a regular file"
        }
    }
}
