import Foundation
import OpenCatCore
public import OpenCatTesting

extension MockAppleCA {
    /// Signs a JSON value as a compact JWS (canonical JSON with exact numbers).
    public func signJWS(_ payload: JSONValue) -> String { signJWS(payload: payload.serialized()) }

    /// A ``MockStoreClient/ProofMinter`` that signs each transaction as an App Store `JWSTransaction` with this CA:
    /// the proof is `appleSignedTransaction` and its token a JWS whose payload follows
    /// [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload)
    /// (dates in integer milliseconds, price in milliunits, `signedDate` = the event's date).
    /// - Parameters:
    ///   - bundleId: the app's bundle id.
    ///   - environment: `Sandbox` or `Production` (as Apple spells it).
    ///   - storefront: the storefront's ISO 3166-1 alpha-3 code.
    public func transactionMinter(
        bundleId: String,
        environment: String = "Sandbox",
        storefront: String = "USA"
    ) -> MockStoreClient.ProofMinter {
        { transaction in
            let jws = signJWS(
                Self.transactionPayload(
                    transaction,
                    bundleId: bundleId,
                    environment: environment,
                    storefront: storefront
                )
            )
            return PurchaseProof(
                store: .apple,
                kind: .appleSignedTransaction,
                token: Secret(jws),
                productId: transaction.productId,
                transactionId: transaction.transactionId
            )
        }
    }

    /// The `JWSTransactionDecodedPayload` JSON for a mock transaction.
    /// - Parameters:
    ///   - transaction: the transaction.
    ///   - bundleId: the app's bundle id.
    ///   - environment: `Sandbox` or `Production`.
    ///   - storefront: the storefront code.
    public static func transactionPayload(
        _ transaction: MockStoreClient.Transaction,
        bundleId: String,
        environment: String = "Sandbox",
        storefront: String = "USA"
    ) -> JSONValue {
        func milliseconds(_ date: Date) -> JSONValue { .integer(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        let type: String
        switch transaction.productType {
        case .autoRenewable: type = "Auto-Renewable Subscription"
        case .nonRenewing: type = "Non-Renewing Subscription"
        case .consumable: type = "Consumable"
        case .nonConsumable: type = "Non-Consumable"
        }
        var payload: [String: JSONValue] = [
            "transactionId": .string(transaction.transactionId),
            "originalTransactionId": .string(transaction.originalTransactionId),
            "bundleId": .string(bundleId),
            "productId": .string(transaction.productId),
            "purchaseDate": milliseconds(transaction.purchaseDate),
            "originalPurchaseDate": milliseconds(transaction.purchaseDate),
            "quantity": 1,
            "type": .string(type),
            "inAppOwnershipType": "PURCHASED",
            "signedDate": milliseconds(transaction.eventDate),
            "environment": .string(environment),
            "transactionReason": transaction.reason == .renewal ? "RENEWAL" : "PURCHASE",
            "storefront": .string(storefront),
            "storefrontId": "143441",
            "currency": .string(transaction.price.currency),
            "price": .decimal(transaction.price.amount * 1000),
        ]
        if let expirationDate = transaction.expirationDate { payload["expiresDate"] = milliseconds(expirationDate) }
        if let revocationDate = transaction.revocationDate {
            payload["revocationDate"] = milliseconds(revocationDate)
            payload["revocationReason"] = 0
        }
        if let token = UUID(uuidString: transaction.appUserId) {
            payload["appAccountToken"] = .string(token.uuidString.lowercased())
        }
        return .object(payload)
    }
}
