public import KeyServerClient

/// What the app's key field says about a key the user typed, before any network call.
///
/// ```swift
/// let entry = KeyEntry(typed: field.text)
/// field.hint = entry.message
/// redeemButton.isEnabled = entry.key != nil
/// ```
public enum KeyEntry: Sendable, Hashable {
    /// A well-formed key, in its canonical spelling (`VUUW-XXXX-XXXX-XXXX-Ln`), with the plan it names.
    case valid(HumanKey)
    /// Not a key, and why.
    case invalid(HumanKeyError)

    /// Checks typed text as Crockford's encoding means it to be read: case does not matter, `O` reads as `0`, `I`
    /// and `L` as `1`, hyphens and spaces are optional. A mistyped symbol, two swapped symbols or a missing one fail
    /// the check symbol.
    /// - Parameter text: what the user typed.
    public init(typed text: String) {
        do {
            self = .valid(try HumanKey(text))
        } catch {
            self = .invalid(error)
        }
    }

    /// The key, when it is well formed.
    public var key: HumanKey? {
        if case .valid(let key) = self { key } else { nil }
    }

    /// A line to show under the field.
    public var message: String {
        switch self {
        case .valid(let key): "\(key): plan \(key.plan)"
        case .invalid(let error): "Not a key: \(error.reason)."
        }
    }
}
