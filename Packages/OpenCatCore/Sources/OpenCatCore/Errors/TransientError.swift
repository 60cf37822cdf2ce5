/// An error that says whether trying again later may succeed.
///
/// OpenCat keeps a purchase in its outbox (and retries on the next sync) when delivery fails with a transient
/// error, and marks it rejected otherwise. ``HTTPTransportError`` is transient; store adapters conform their
/// error types (a timeout or a 5xx is transient, a forged proof is not).
public protocol TransientErrorClassifying: Error {
    /// Whether a later attempt may succeed.
    var isTransient: Bool { get }
}

extension HTTPTransportError: TransientErrorClassifying {
    /// Timeouts and lost connections are transient; a malformed request is not.
    public var isTransient: Bool { code == .timeout || code == .connectionFailed }
}

extension OpenCatError: TransientErrorClassifying {
    /// `network` errors are transient.
    public var isTransient: Bool { code == .network }
}
