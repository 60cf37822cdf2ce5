public import Foundation
public import MockStores
public import OpenCatCore
public import StoreAdapters

/// A cassette's `expect`, typed: states, environments and error codes as the adapters' own types, dates as dates,
/// prices as exact money. A result is compared field by field with `==` on these types, never as text.
public struct ConformanceExpectation: Sendable, Hashable {
    /// What the adapter must do.
    public enum Outcome: Sendable, Hashable {
        /// Return a purchase in this state (nil: any state).
        case verified(VerifiedPurchase.State?)
        /// Throw a `StoreAdapterError` with this code.
        case error(StoreAdapterError.Code)
    }

    /// What the adapter must do: verify (in a state) or throw (with a code).
    public var outcome: Outcome
    /// The store the purchase must name.
    public var store: Store?
    /// The product id.
    public var productId: String?
    /// The store's transaction id.
    public var transactionId: String?
    /// The original transaction id (a subscription's first purchase).
    public var originalTransactionId: String?
    /// Who bought: the store's account or app account token.
    public var purchaser: String?
    /// Production or sandbox.
    public var environment: VerifiedPurchase.Environment?
    /// Whether the purchase is acknowledged, captured or consumed at the store.
    public var finalized: Bool?
    /// Whether a subscription renews.
    public var willRenew: Bool?
    /// How many units were bought.
    public var quantity: Int?
    /// The store's own status word, as the adapter reports it.
    public var storeStatus: String?
    /// For an error: the store's reason the error carries (`StoreAdapterError.storeReason`).
    public var storeReason: String?
    /// When it was bought.
    public var purchaseDate: Date?
    /// When the subscription period ends.
    public var expirationDate: Date?
    /// When a billing grace period ends.
    public var gracePeriodExpirationDate: Date?
    /// When it was verified (the run's test clock).
    public var verifiedAt: Date?
    /// The price paid, exact in minor units.
    public var price: Money?
    /// How much was refunded, exact in minor units.
    public var refundedAmount: Money?

    /// Types a cassette's expectation.
    /// - Throws: ``ConformanceError`` naming the field that is not a known value (a state, an environment, a date,
    ///   an amount).
    public init(_ expect: Cassette.Expectation) throws {
        switch expect.outcome {
        case .verified:
            outcome = .verified(
                try expect.state.map {
                    guard let state = VerifiedPurchase.State(rawValue: $0) else {
                        throw ConformanceError("expect.state: '\($0)' is not a VerifiedPurchase state")
                    }
                    return state
                }
            )
        case .error:
            guard let code = expect.code else { throw ConformanceError("expect.code: an error outcome needs a code") }
            outcome = .error(StoreAdapterError.Code(rawValue: code))
        default: throw ConformanceError("expect.outcome: '\(expect.outcome)' is neither verified nor error")
        }
        store = expect.store.map { Store(rawValue: $0) }
        productId = expect.productId
        transactionId = expect.transactionId
        originalTransactionId = expect.originalTransactionId
        purchaser = expect.purchaser
        environment = try expect.environment.map {
            guard let environment = VerifiedPurchase.Environment(rawValue: $0) else {
                throw ConformanceError("expect.environment: '\($0)' is neither production nor sandbox")
            }
            return environment
        }
        finalized = expect.finalized
        willRenew = expect.willRenew
        quantity = expect.quantity
        storeStatus = expect.storeStatus
        storeReason = expect.storeReason
        func date(_ name: String, _ text: String?) throws -> Date? {
            try text.map {
                guard let date = Cassette.Expectation.date($0) else {
                    throw ConformanceError("expect.\(name): '\($0)' is not an ISO 8601 date")
                }
                return date
            }
        }
        purchaseDate = try date("purchaseDate", expect.purchaseDate)
        expirationDate = try date("expirationDate", expect.expirationDate)
        gracePeriodExpirationDate = try date("gracePeriodExpirationDate", expect.gracePeriodExpirationDate)
        verifiedAt = try date("verifiedAt", expect.verifiedAt)
        func money(_ name: String, _ price: Cassette.Expectation.Price?) throws -> Money? {
            try price.map {
                guard let money = Money(decimalString: $0.amount, currency: $0.currency) else {
                    throw ConformanceError("expect.\(name): '\($0.amount) \($0.currency)' is not an exact amount")
                }
                return money
            }
        }
        price = try money("price", expect.price)
        refundedAmount = try money("refundedAmount", expect.refundedAmount)
    }

    /// What differs between an adapter's outcome and this expectation (nothing when it meets it).
    public func problems(with outcome: Result<VerifiedPurchase, any Error>) -> [String] {
        switch (outcome, self.outcome) {
        case (.success(let purchase), .verified(let state)):
            return problems(with: purchase, state: state)
        case (.success(let purchase), .error(let code)):
            return ["expected error \(code), got a verified purchase in state \(purchase.state)"]
        case (.failure(let error as StoreAdapterError), .error(let code)):
            guard error.code == code else { return ["expected error \(code), got \(error.code) (\(error.message))"] }
            guard let storeReason, storeReason != error.storeReason else { return [] }
            return ["storeReason: expected \(storeReason), got \(error.storeReason ?? "nil") (\(error.message))"]
        case (.failure(let error), .verified(let state)):
            return ["expected state \(state.map(\.rawValue) ?? "any"), got \(error)"]
        case (.failure(let error), .error(let code)):
            return ["expected error \(code), got \(error)"]
        }
    }

    private func problems(with purchase: VerifiedPurchase, state: VerifiedPurchase.State?) -> [String] {
        var problems: [String] = []
        func check<Value: Equatable>(_ name: String, _ expected: Value?, _ actual: Value?) {
            if let expected, expected != actual {
                problems.append("\(name): expected \(expected), got \(actual.map { "\($0)" } ?? "nil")")
            }
        }
        // Store timestamps are integer milliseconds: dates are equal when they name the same millisecond.
        func checkDate(_ name: String, _ expected: Date?, _ actual: Date?) {
            if let expected, actual.map(Self.milliseconds) != Self.milliseconds(expected) {
                problems.append("\(name): expected \(Self.iso(expected)), got \(actual.map(Self.iso) ?? "nil")")
            }
        }
        // Exact: the same amount (as a Decimal, whatever its scale) in the same currency.
        func checkMoney(_ name: String, _ expected: Money?, _ actual: Money?) {
            if let expected, actual?.amount != expected.amount || actual?.currency != expected.currency {
                problems.append("\(name): expected \(expected), got \(actual.map(\.description) ?? "nil")")
            }
        }
        check("state", state, purchase.state)
        check("store", store, purchase.store)
        check("productId", productId, purchase.productId)
        check("transactionId", transactionId, purchase.transactionId)
        check("originalTransactionId", originalTransactionId, purchase.originalTransactionId)
        check("purchaser", purchaser, purchase.purchaser)
        check("environment", environment, purchase.environment)
        check("finalized", finalized, purchase.finalizedByAdapter)
        check("willRenew", willRenew, purchase.willRenew)
        check("quantity", quantity, purchase.quantity)
        check("storeStatus", storeStatus, purchase.storeStatus)
        checkDate("purchaseDate", purchaseDate, purchase.purchaseDate)
        checkDate("expirationDate", expirationDate, purchase.expirationDate)
        checkDate("gracePeriodExpirationDate", gracePeriodExpirationDate, purchase.gracePeriodExpirationDate)
        checkDate("verifiedAt", verifiedAt, purchase.verifiedAt)
        checkMoney("price", price, purchase.price)
        checkMoney("refundedAmount", refundedAmount, purchase.refundedAmount)
        return problems
    }

    /// A date as integer milliseconds since 1970 (rounded), as stores keep them.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: value) ?? (value > 0 ? .max : .min)
    }

    /// A date in ISO 8601 with milliseconds, for messages.
    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
