/// A failed transfer, with the message a person can act on.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server answered with an HTTP error status.
        case http(status: Int)
        /// The body was larger than the allowed size.
        case tooLarge(limit: Int64)
        /// DNS, connect, TLS, timeout, reset...: libcurl's own error.
        case network(code: Int)
        /// The URL scheme is not http or https.
        case unsupported
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
