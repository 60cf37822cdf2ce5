import Foundation
import OpenCatCore

/// A key-server failure, typed: what happened, the HTTP status and the server's own code when it sent one. Never
/// carries a token, key or license.
public struct KeyServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong (open: the server may add codes).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as text (stable: safe to store and compare).
        public let rawValue: String
        /// A code from its text (codes a later version adds read as themselves).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as text.
        public var description: String { rawValue }

        /// No connection (offline, DNS, refused).
        public static let network = Code(rawValue: "network")
        /// No answer in time.
        public static let timeout = Code(rawValue: "timeout")
        /// The caller's task was cancelled before an answer: whether the server acted is unknown (a spend or a
        /// purchase stays pending; its idempotency key makes sending it again safe).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The server is down or overloaded (5xx).
        public static let serverUnavailable = Code(rawValue: "serverUnavailable")
        /// Too many requests (429) after the retries.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// The token is missing, invalid or expired (401/403).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// An email, Steam id or other input the client or server refused (400/422).
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// The proof of a key-pack purchase was refused (the server's verdict).
        public static let purchaseRejected = Code(rawValue: "purchaseRejected")
        /// Not enough keys in the wallet.
        public static let insufficientBalance = Code(rawValue: "insufficientBalance")
        /// No such user, app or feature (404).
        public static let notFound = Code(rawValue: "notFound")
        /// An answer that cannot be read.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for logs and developers; never holds a token, key or license.
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's own error code (`insufficient_balance`, …).
    public var serverCode: String?
    /// Why the store refused a purchase proof, when the server says: the shared StoreAdapters code
    /// (`invalidProof`, `wrongApplication`, `notPaid`, …) from the error body's `reason`.
    public var serverReason: String?

    /// An error with its code, message and what the server said.
    public init(
        _ code: Code,
        _ message: String,
        status: Int? = nil,
        serverCode: String? = nil,
        serverReason: String? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
        self.serverReason = serverReason
    }

    /// Whether trying later may succeed (what stays in the outbox).
    public var isTransient: Bool {
        [.network, .timeout, .cancelled, .serverUnavailable, .rateLimited].contains(code)
    }

    /// The code, the message and the HTTP status and server code when there was an answer.
    public var description: String {
        "KeyServerError.\(code): \(message)"
            + (status.map { " (HTTP \($0)" + (serverCode.map { ", \($0)" } ?? "") + ")" } ?? "")
    }

    /// The error for a failed call (the key server's mapping of ``JSONAPIFailure``).
    static func from(_ failure: JSONAPIFailure) -> KeyServerError {
        switch failure {
        case .invalidRequest(let reason): KeyServerError(.invalidInput, reason)
        case .transport(let error): from(error)
        case .refused(let status, let envelope, _): from(status: status, envelope: envelope)
        case .unreadable(let status, let type, let summary):
            KeyServerError(.malformedResponse, "the key server sent an unreadable \(type): \(summary)", status: status)
        }
    }

    /// The error for an answer that is not 2xx, from its status and `{"error": {…}}` envelope.
    static func from(status: Int, envelope: JSONAPIErrorEnvelope?) -> KeyServerError {
        let serverCode = envelope?.code
        let code: Code
        switch (status, serverCode) {
        case (_, "insufficient_balance"), (402, _): code = .insufficientBalance
        case (_, "invalid_receipt"), (_, "purchase_rejected"): code = .purchaseRejected
        case (401, _), (403, _): code = .unauthorized
        case (404, _): code = .notFound
        case (429, _): code = .rateLimited
        case (400, _), (409, _), (422, _): code = .invalidInput
        case (500..., _): code = .serverUnavailable
        default: code = .malformedResponse
        }
        return KeyServerError(
            code,
            "the key server answered HTTP \(status)",
            status: status,
            serverCode: serverCode,
            serverReason: envelope?.reason.flatMap { $0.utf8.count <= 64 ? $0 : nil }
        )
    }

    /// The error for a transport failure.
    static func from(_ error: HTTPTransportError) -> KeyServerError {
        error.code == .timeout
            ? KeyServerError(.timeout, "the key server did not answer in time")
            : KeyServerError(.network, "the key server could not be reached (\(error.code))")
    }
}

extension KeyServerError: TransientErrorClassifying {}
