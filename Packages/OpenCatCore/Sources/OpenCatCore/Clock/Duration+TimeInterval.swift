public import Foundation

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval` (for date arithmetic).
    public var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
