import Foundation

/// A parsed `Stripe-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`.
///
/// See <https://docs.stripe.com/webhooks#verify-manually>. Elements of other schemes (`v0`) and unknown elements
/// are ignored, as Stripe's own libraries do.
struct StripeSignatureHeader: Sendable, Hashable {
    /// The longest header read (bytes).
    static let maximumLength = 4_096
    /// The most comma-separated elements read.
    static let maximumElements = 32

    /// The signing time, in seconds since 1970.
    var timestamp: Int64
    /// Every `v1` signature, as written (hex).
    var signatures: [String]

    /// Parses a header value.
    /// - Throws: ``StripeWebhookError`` `.missingHeader`, `.malformedHeader` or `.noSignatures`.
    init(parsing header: String?) throws(StripeWebhookError) {
        guard let header, !header.allSatisfy(\.isWhitespace) else {
            throw StripeWebhookError(.missingHeader, "no Stripe-Signature header")
        }
        // Stripe sends a timestamp and a signature per active secret (two while rolling one): these bounds leave
        // room and stop a hostile header from costing work.
        guard header.utf8.count <= Self.maximumLength else {
            throw StripeWebhookError(
                .malformedHeader,
                "the Stripe-Signature header is longer than \(Self.maximumLength) bytes"
            )
        }
        var timestamp: Int64?
        var signatures: [String] = []
        let elements = header.split(separator: ",")
        guard elements.count <= Self.maximumElements else {
            throw StripeWebhookError(
                .malformedHeader,
                "the Stripe-Signature header has more than \(Self.maximumElements) elements"
            )
        }
        for element in elements {
            guard let equals = element.firstIndex(of: "=") else { continue }
            let key = element[..<equals].trimmingCharacters(in: .whitespaces)
            let value = element[element.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "t" where timestamp == nil:
                guard let seconds = Int64(value), seconds >= 0 else {
                    throw StripeWebhookError(.malformedHeader, "the Stripe-Signature timestamp is not an integer")
                }
                timestamp = seconds
            case "v1":
                signatures.append(value)
            default:
                continue
            }
        }
        guard let timestamp else {
            throw StripeWebhookError(.malformedHeader, "the Stripe-Signature header has no timestamp")
        }
        guard !signatures.isEmpty else {
            throw StripeWebhookError(.noSignatures, "the Stripe-Signature header has no v1 signature")
        }
        self.timestamp = timestamp
        self.signatures = signatures
    }
}
