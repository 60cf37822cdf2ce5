/// How a ``MockStoreServer`` lets time pass for `delay` and `timeout` faults: injected, so that a test clock shared
/// with the client is moved on purpose, never discovered by a downcast.
public enum MockRemoteTime: Sendable {
    /// A `delay` waits on the server's clock while holding the connection; a `timeout` holds the request until the
    /// client gives up. Right for real time (`opencat mock serve`) and for clocks that move by themselves.
    case waitsOnClock
    /// The server's clock is a test clock shared with the client and moved by `advance`: a `delay` moves it on by
    /// the delay, a `timeout` by one minute (past any client timeout), so the client's timer fires without real
    /// waiting. Pass the test clock's own advance, e.g. `.sharedClock { clock.advance(by: $0) }`.
    case sharedClock(advance: @Sendable (Duration) -> Void)
}
