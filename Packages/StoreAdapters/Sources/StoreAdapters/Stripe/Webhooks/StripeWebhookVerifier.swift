import Crypto
public import Foundation
public import Logging
public import OpenCatCore

/// Checks that a webhook delivery comes from Stripe, then reads the event.
///
/// Stripe signs each delivery with the endpoint's signing secret (`whsec_…`): the `Stripe-Signature` header
/// carries `t=<unix seconds>` and one or more `v1=<hex>` signatures, each the HMAC-SHA256 of
/// `"<t>.<raw body>"`. A delivery is genuine when **any** `v1` matches under **any** configured secret (Stripe
/// sends several while a secret is being rolled), compared in constant time, and when `t` is within
/// ``tolerance`` of now (this rejects replays). See <https://docs.stripe.com/webhooks#verify-manually>.
///
/// ```swift
/// let verifier = try StripeWebhookVerifier(secret: Secret(endpointSecret))
/// let event = try verifier.verify(payload: body, signatureHeader: headers["Stripe-Signature"])
/// ```
///
/// The payload must be the request body exactly as received: any re-serialization breaks the signature.
public struct StripeWebhookVerifier: Sendable {
    /// The header Stripe signs deliveries in.
    public static let signatureHeaderName = "Stripe-Signature"
    /// Stripe's default tolerance between the signature's timestamp and now.
    public static let defaultTolerance: Duration = .seconds(300)

    /// The largest accepted distance between the signature's timestamp and now (either way); `nil` disables the
    /// check (not recommended: it allows replays).
    public var tolerance: Duration?
    private let secrets: [Secret<String>]
    private let clock: any WallClock
    private let logger: Logger

    /// The secret's prefix: every endpoint signing secret Stripe issues (Dashboard and `stripe listen`) starts
    /// with it.
    public static let secretPrefix = "whsec_"
    /// The fewest characters accepted after ``secretPrefix``. Stripe's secrets carry 32; 16 still refuses an
    /// empty, truncated or placeholder value (an unset environment variable) that would make the HMAC key guessable.
    public static let minimumSecretLength = 16

    /// Creates a verifier for one endpoint secret.
    /// - Parameters:
    ///   - secret: the endpoint's signing secret (`whsec_…`).
    ///   - tolerance: see ``tolerance``.
    ///   - clock: where "now" comes from when no explicit date is passed.
    ///   - logger: receives one debug line per rejected delivery (the reason only).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/misconfigured`` when the secret is not a usable
    ///   signing secret (see ``validateSecret(_:)``).
    public init(
        secret: Secret<String>,
        tolerance: Duration? = StripeWebhookVerifier.defaultTolerance,
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.stripe.webhooks", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(StoreAdapterError) {
        try self.init(secrets: [secret], tolerance: tolerance, clock: clock, logger: logger)
    }

    /// Creates a verifier that accepts signatures made with any of several secrets (while rolling a secret).
    /// - Parameters:
    ///   - secrets: the endpoint's signing secrets.
    ///   - tolerance: see ``tolerance``.
    ///   - clock: where "now" comes from when no explicit date is passed.
    ///   - logger: receives one debug line per rejected delivery (the reason only).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/misconfigured`` when the list is empty or any
    ///   secret is not a usable signing secret (see ``validateSecret(_:)``).
    public init(
        secrets: [Secret<String>],
        tolerance: Duration? = StripeWebhookVerifier.defaultTolerance,
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.stripe.webhooks", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(StoreAdapterError) {
        guard !secrets.isEmpty else {
            throw StoreAdapterError(.misconfigured, store: .stripe, "no webhook signing secret is configured")
        }
        for secret in secrets { try Self.validateSecret(secret) }
        self.secrets = secrets
        self.tolerance = tolerance
        self.clock = clock
        self.logger = logger
    }

    /// Refuses a signing secret that cannot authenticate anything: empty, whitespace, shorter than
    /// ``secretPrefix`` + ``minimumSecretLength`` characters, without the `whsec_` prefix (an API key pasted by
    /// mistake), or containing whitespace or control characters. The message never contains the secret.
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/misconfigured``.
    public static func validateSecret(_ secret: Secret<String>) throws(StoreAdapterError) {
        let text = secret.revealed
        func refuse(_ why: String) -> StoreAdapterError {
            StoreAdapterError(.misconfigured, store: .stripe, "the webhook signing secret \(why)")
        }
        guard !text.allSatisfy(\.isWhitespace) else { throw refuse("is empty") }
        guard text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
            throw refuse("contains whitespace or control characters")
        }
        guard text.hasPrefix(secretPrefix) else { throw refuse("does not start with \"\(secretPrefix)\"") }
        guard text.utf8.count - secretPrefix.utf8.count >= minimumSecretLength else {
            throw refuse("is too short (at least \(minimumSecretLength) characters after \"\(secretPrefix)\")")
        }
    }

    /// Verifies a delivery at the clock's current date and reads its event.
    /// - Parameters:
    ///   - payload: the request body, byte for byte.
    ///   - signatureHeader: the `Stripe-Signature` header's value (`nil` if absent).
    /// - Returns: the event.
    /// - Throws: ``StripeWebhookError``.
    public func verify(payload: Data, signatureHeader: String?) throws(StripeWebhookError) -> Stripe.Event {
        try verify(payload: payload, signatureHeader: signatureHeader, now: clock.currentDate)
    }

    /// Verifies a delivery at a given date and reads its event.
    /// - Parameters:
    ///   - payload: the request body, byte for byte.
    ///   - signatureHeader: the `Stripe-Signature` header's value (`nil` if absent).
    ///   - now: the date to check the timestamp against.
    /// - Returns: the event.
    /// - Throws: ``StripeWebhookError``.
    public func verify(payload: Data, signatureHeader: String?, now: Date) throws(StripeWebhookError) -> Stripe.Event {
        try verifySignature(payload: payload, signatureHeader: signatureHeader, now: now)
        do {
            return try Stripe.Event(payload: payload)
        } catch {
            logger.debug("stripe webhook rejected", metadata: ["reason": "\(StripeWebhookError.Code.malformedPayload)"])
            throw StripeWebhookError(
                .malformedPayload,
                "the signed payload is not a Stripe event (\(StoreHTTP.summary(of: error)))"
            )
        }
    }

    /// Verifies a delivery's signature and timestamp only.
    /// - Parameters:
    ///   - payload: the request body, byte for byte.
    ///   - signatureHeader: the `Stripe-Signature` header's value (`nil` if absent).
    ///   - now: the date to check the timestamp against.
    /// - Returns: the signing time from the header.
    /// - Throws: ``StripeWebhookError``.
    @discardableResult
    public func verifySignature(payload: Data, signatureHeader: String?, now: Date) throws(StripeWebhookError) -> Date {
        do {
            return try checkSignature(payload: payload, signatureHeader: signatureHeader, now: now)
        } catch {
            logger.debug("stripe webhook rejected", metadata: ["reason": "\(error.code)"])
            throw error
        }
    }

    /// The largest webhook payload read (Stripe's events are kilobytes; an expanded object stays far below this).
    public static let maximumPayloadBytes = 4 * 1024 * 1024

    private func checkSignature(payload: Data, signatureHeader: String?, now: Date) throws(StripeWebhookError) -> Date {
        guard payload.count <= Self.maximumPayloadBytes else {
            throw StripeWebhookError(.malformedPayload, "the payload is larger than \(Self.maximumPayloadBytes) bytes")
        }
        let header = try StripeSignatureHeader(parsing: signatureHeader)
        var signedPayload = Data("\(header.timestamp).".utf8)
        signedPayload.append(payload)
        let candidates = header.signatures.compactMap(Self.bytes(fromHex:))
        var matched = false
        for secret in secrets {
            let key = SymmetricKey(data: Data(secret.revealed.utf8))
            let expected = Data(HMAC<SHA256>.authenticationCode(for: signedPayload, using: key))
            for candidate in candidates where ConstantTime.equals(candidate, expected) { matched = true }
        }
        guard matched else {
            throw StripeWebhookError(.signatureMismatch, "no v1 signature matches the payload")
        }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(header.timestamp))
        if let tolerance {
            // Doubles only: extreme timestamps or dates (Int64.max, Int64.min) must reject, never trap.
            let limit =
                Double(tolerance.components.seconds) + Double(tolerance.components.attoseconds) / 1e18
            let age = now.timeIntervalSince(signedAt)
            guard age.isFinite, limit.isFinite, abs(age) <= limit else {
                throw StripeWebhookError(
                    .timestampOutsideTolerance,
                    "the signature's timestamp is \(Self.describe(seconds: age)) from now (tolerance \(tolerance))"
                )
            }
        }
        return signedAt
    }

    /// A distance in seconds for a message, without converting an out-of-range Double to an integer.
    static func describe(seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "more than 10^15 s" }
        return "\(Int64(seconds.rounded())) s"
    }

    /// Decodes a hex string (either case); `nil` for anything else.
    static func bytes(fromHex hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
