import Foundation
public import OpenCatCore

/// A ChippiPay or Starknet failure, typed as the design's error flow: what happened, a message a person can read,
/// the HTTP status and ChippiPay's own code when it sent one. Never carries an API key, JWT or private key.
public struct ChippiPayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong (open: ChippiPay may add codes).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as logged and stored in a purchase record's `failureCode` (`network`, `skuNotFound`, …).
        public let rawValue: String
        /// A code with this name; any string is accepted, so codes ChippiPay adds later still round-trip.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name (its ``rawValue``).
        public var description: String { rawValue }

        /// No connection: retryable.
        public static let network = Code(rawValue: "network")
        /// No answer in time: retryable.
        public static let timeout = Code(rawValue: "timeout")
        /// The caller's task was cancelled before an answer: whether ChippiPay acted is unknown; retryable (the
        /// idempotency key makes sending again safe).
        public static let cancelled = Code(rawValue: "cancelled")
        /// 401/403 or `INVALID_API_KEY`: the API key, secret key or JWT is not valid.
        public static let credentialsInvalid = Code(rawValue: "credentialsInvalid")
        /// 404 on an endpoint: the service is temporarily unavailable.
        public static let serviceUnavailable = Code(rawValue: "serviceUnavailable")
        /// 429 after the automatic back-off.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// 5xx: ChippiPay's own failure; retryable.
        public static let serviceError = Code(rawValue: "serviceError")
        /// `SKU_NOT_FOUND`.
        public static let skuNotFound = Code(rawValue: "skuNotFound")
        /// `WALLET_NOT_FOUND`.
        public static let walletNotFound = Code(rawValue: "walletNotFound")
        /// `INSUFFICIENT_BALANCE` from ChippiPay, or a vault balance below the quote (nothing was sent).
        public static let insufficientBalance = Code(rawValue: "insufficientBalance")
        /// 400/409/422: the request was refused as invalid (a reference that does not match the SKU, …).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// An answer that cannot be read.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// The purchase ended FAILED or CANCELLED.
        public static let purchaseFailed = Code(rawValue: "purchaseFailed")
        /// Still pending after the last polling attempt.
        public static let stillPending = Code(rawValue: "stillPending")
        /// The vault withdrawal was REVERTED or REJECTED on chain (the reason is kept).
        public static let withdrawalReverted = Code(rawValue: "withdrawalReverted")
        /// The Starknet node answered with a JSON-RPC error.
        public static let rpcError = Code(rawValue: "rpcError")
        /// Bad input from the caller (an amount, an address, a key).
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// Local state could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// Typed data ChippiPay prepared asks the wallet's key to sign other calls than expected (another
        /// recipient or amount in a sponsored execution, any call but the account's activation in a wallet
        /// creation): nothing was signed, sent or stored.
        public static let unexpectedCalls = Code(rawValue: "unexpectedCalls")
    }

    /// What went wrong: decides ``isRetryable`` and ``userMessage``.
    public var code: Code
    /// What happened, for logs and developers.
    public var message: String
    /// The HTTP status, when a server answered.
    public var status: Int?
    /// ChippiPay's own error code (`INVALID_API_KEY`, `SKU_NOT_FOUND`, …) or the node's JSON-RPC code.
    public var serverCode: String?
    /// The revert reason or the node's error data, when there is one.
    public var reason: String?
    /// Polling attempts made, for ``Code/stillPending``.
    public var attempts: Int?

    /// An error with its code and a message for developers; the other values are those of the properties of the
    /// same names (nil when unknown).
    public init(
        _ code: Code,
        _ message: String,
        status: Int? = nil,
        serverCode: String? = nil,
        reason: String? = nil,
        attempts: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
        self.reason = reason
        self.attempts = attempts
    }

    /// Whether trying again later may succeed (the design's "Retry button").
    public var isRetryable: Bool {
        [.network, .timeout, .cancelled, .rateLimited, .serviceError, .serviceUnavailable, .stillPending].contains(code)
    }

    /// The message to show a person, as the design's error flow words it.
    public var userMessage: String {
        switch code {
        case .network: "Check your internet connection and try again."
        case .timeout: "The request timed out. Try again."
        case .cancelled: "The request was cancelled. Try again."
        case .credentialsInvalid: "API credentials invalid. Reconfigure your ChippiPay keys."
        case .serviceUnavailable: "Service temporarily unavailable."
        case .rateLimited: "Too many requests. Wait a moment and try again."
        case .serviceError: "ChippiPay service error. Try again."
        case .skuNotFound: "This service is not available."
        case .walletNotFound: "No ChippiPay wallet was found for this user."
        case .insufficientBalance: "Your balance is not enough for this purchase."
        case .invalidRequest: "ChippiPay refused the request. Check the details and try again."
        case .purchaseFailed: "The purchase failed. Nothing was delivered."
        case .stillPending: "The purchase is still being processed. Check again later."
        case .withdrawalReverted: "The vault withdrawal was reverted. No purchase was made."
        case .unexpectedCalls: "ChippiPay asked to sign something unexpected. Nothing was signed."
        default: "Something went wrong. Try again."
        }
    }

    /// For logs: `ChippiPayError.<code>: <message>`, then `(HTTP <status>, <server code>)` when a server answered, or
    /// `(<server code>)` when only the code is known. Carries no key, secret or JWT.
    public var description: String {
        "ChippiPayError.\(code): \(message)"
            + (status.map { " (HTTP \($0)" + (serverCode.map { ", \($0)" } ?? "") + ")" } ?? "")
            + (status == nil ? serverCode.map { " (\($0))" } ?? "" : "")
    }

    /// The error for a failed call (ChippiPay's mapping of ``JSONAPIFailure``); `redact` as in
    /// ``from(status:body:redact:)``.
    static func from(_ failure: JSONAPIFailure, redact: (String) -> String) -> ChippiPayError {
        switch failure {
        case .invalidRequest(let reason): ChippiPayError(.invalidInput, reason)
        case .transport(let error): from(error)
        case .refused(let status, _, let body): from(status: status, body: body, redact: redact)
        case .unreadable(let status, let type, _):
            ChippiPayError(.malformedResponse, "ChippiPay sent an unreadable \(type)", status: status)
        }
    }

    /// The error for an answer that is not 2xx: ChippiPay's `{message, code}` or `{error, message}` body (NestJS
    /// style too: `message` may be a list, `code` a number). `redact` removes the client's credentials from the
    /// server's words before they are cut to length.
    static func from(status: Int, body: Data, redact: (String) -> String = { $0 }) -> ChippiPayError {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        func text(_ value: Any?) -> String? {
            switch value {
            case let string as String: string
            case let number as NSNumber: number.stringValue
            case let list as [Any]: list.compactMap { text($0) }.joined(separator: "; ")
            default: nil
            }
        }
        let rawCode = text(object?["code"]) ?? text(object?["error"])
        let serverCode = rawCode.map { String(redact($0).prefix(64)) }
        let code: Code =
            switch (status, serverCode?.uppercased()) {
            case (_, "INVALID_API_KEY"), (401, _), (403, _): .credentialsInvalid
            case (_, "SKU_NOT_FOUND"): .skuNotFound
            case (_, "WALLET_NOT_FOUND"): .walletNotFound
            case (_, "INSUFFICIENT_BALANCE"): .insufficientBalance
            case (404, _): .serviceUnavailable
            case (408, _): .timeout
            case (429, _): .rateLimited
            case (500..., _): .serviceError
            case (400, _), (409, _), (422, _): .invalidRequest
            default: .malformedResponse
            }
        let serverMessage = text(object?["message"]).map { String(redact($0).prefix(200)) }
        return ChippiPayError(
            code,
            serverMessage ?? "ChippiPay answered HTTP \(status)",
            status: status,
            serverCode: serverCode
        )
    }

    /// The error for a transport failure.
    static func from(_ error: HTTPTransportError) -> ChippiPayError {
        error.code == .timeout
            ? ChippiPayError(.timeout, "no answer in time")
            : ChippiPayError(.network, "the server could not be reached (\(error.code))")
    }
}

extension ChippiPayError: TransientErrorClassifying {
    /// The same as ``ChippiPayError/isRetryable``: OpenCat keeps work queued and retries it later for these codes.
    public var isTransient: Bool { isRetryable }
}
