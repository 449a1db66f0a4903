import MediaCache
import MediaListing
import MediaplayCommon

/// Opens the cache named by the global options, as a one-line error if it cannot.
package enum CacheAccess {
    package static func open(_ global: GlobalOptions, configuration: CacheConfiguration = CacheConfiguration()) throws(CLIError) -> MediaCache {
        do {
            let cache = try MediaCache(directory: global.cacheDirectory, configuration: configuration)
            _ = Listing.noteRecovery(cache.folder)
            return cache
        } catch {
            throw CLIError(error.description, exitCode: .ioError)
        }
    }
}
