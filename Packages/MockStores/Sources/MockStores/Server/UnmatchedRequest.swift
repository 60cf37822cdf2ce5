/// A request no interaction answered, with the nearest interaction and the first field that differed.
public struct UnmatchedRequest: Sendable, Hashable, CustomStringConvertible {
    /// The request.
    public var request: MockRequest
    /// The nearest interaction (same method and path, else same path, else the first unused one), if any is loaded.
    public var nearest: InteractionReference?
    /// The first field of ``nearest`` that differed (`query: expected expand[]=latest_charge, found none`).
    public var difference: String?

    /// Creates a record.
    public init(request: MockRequest, nearest: InteractionReference?, difference: String?) {
        self.request = request
        self.nearest = nearest
        self.difference = difference
    }

    public var description: String {
        guard let nearest else { return "unmatched request \(request.line): no interaction is loaded" }
        return "unmatched request \(request.line): nearest is \(nearest)"
            + (difference.map { ": \($0)" } ?? "")
    }
}
