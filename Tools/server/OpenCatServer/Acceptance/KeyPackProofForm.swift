import Foundation
import HTTPTypes
import KeyServerAPI
import OpenCatCore
import StoreAdapters

/// How a key-server purchase body (`KeyPurchaseRequest`) names a proof of one kind: the field that carries it, and how
/// the proof is bound to the token's own account. The route takes the first form whose field the body carries and
/// whose kind the store's adapter accepts, else the generic form (`kind` and `proof`) any adapter reads.
struct KeyPackProofForm: Sendable {
    /// The proof kind the form names.
    let kind: PurchaseProof.Kind
    /// The field that carries the proof.
    let field: @Sendable (KeyPurchaseRequest) -> String?
    /// Order and payment ids are not secrets: with `bindPurchases` the store must say the purchase was made for
    /// this user.
    let bindsBuyerId: Bool
    let make: @Sendable (KeyPurchaseRequest, Store, ServerUser) throws -> PurchaseProof

    /// The forms of the key server's wire format (keyserver.openapi.yaml), in the order they are tried.
    static let wireForms: [KeyPackProofForm] = [
        KeyPackProofForm(kind: .appleSignedTransaction, field: \.transaction, bindsBuyerId: false) { body, store, _ in
            PurchaseProof(store: store, kind: .appleSignedTransaction, token: Secret(try required(body.transaction)))
        },
        KeyPackProofForm(kind: .googleProductPurchaseToken, field: \.purchaseToken, bindsBuyerId: true) {
            body,
            store,
            _ in
            PurchaseProof(
                store: store,
                kind: .googleProductPurchaseToken,
                token: Secret(try required(body.purchaseToken)),
                productId: try required(body.productId)
            )
        },
        KeyPackProofForm(kind: .stripePaymentIntent, field: \.paymentIntentId, bindsBuyerId: true) { body, store, _ in
            PurchaseProof(store: store, kind: .stripePaymentIntent, token: Secret(try required(body.paymentIntentId)))
        },
        KeyPackProofForm(kind: .paypalOrder, field: \.paymentId, bindsBuyerId: true) { body, store, _ in
            PurchaseProof(store: store, kind: .paypalOrder, token: Secret(try required(body.paymentId)))
        },
        KeyPackProofForm(kind: .steamTransaction, field: \.steamId, bindsBuyerId: false, make: steamProof),
    ]

    /// A Steam order credits the token's own Steam account, which the store must report as the buyer.
    static func steamProof(_ body: KeyPurchaseRequest, _ store: Store, _ user: ServerUser) throws -> PurchaseProof {
        let steamId = try required(body.steamId)
        guard steamId.count <= 20, steamId.allSatisfy(\.isASCII), UInt64(steamId) != nil else {
            throw APIError(.badRequest, "invalid_input", "a Steam id is a 64-bit number")
        }
        guard user.steamId == steamId else {
            throw APIError(.forbidden, "forbidden", "a purchase credits the token's own Steam account")
        }
        var proof = PurchaseProof(
            store: store,
            kind: .steamTransaction,
            token: Secret(try required(body.transactionId)),
            transactionId: body.transactionId
        )
        proof.expectedPurchaser = steamId
        return proof
    }

    /// The proof a body names for an adapter, bound to its buyer: the token's own account (email, Steam id) and,
    /// where ids are not secrets, the buyer the store must report.
    static func proof(_ body: KeyPurchaseRequest, for adapter: any StoreAdapter, user: ServerUser, bind: Bool) throws
        -> PurchaseProof
    {
        if let form = wireForms.first(where: { $0.field(body) != nil && PurchaseDesk.accepts($0.kind, from: adapter) })
        {
            var proof = try form.make(body, adapter.store, user)
            if form.kind != .steamTransaction { try checkEmail(body, user) }
            if bind, form.bindsBuyerId { proof.expectedPurchaser = user.userId }
            return proof
        }
        return try genericProof(body, for: adapter, user: user)
    }

    /// The generic form, `kind` and `proof`: any kind the adapter reads, bound to the token's own account (the
    /// adapter is asked for this user as the buyer).
    static func genericProof(_ body: KeyPurchaseRequest, for adapter: any StoreAdapter, user: ServerUser) throws
        -> PurchaseProof
    {
        let kind = PurchaseProof.Kind(rawValue: try required(body.kind))
        guard PurchaseDesk.accepts(kind, from: adapter) else {
            throw APIError(.unprocessableContent, "invalid_receipt", "this server does not verify that proof")
        }
        try checkEmail(body, user)
        var proof = PurchaseProof(
            store: adapter.store,
            kind: kind,
            token: Secret(try required(body.proof)),
            productId: body.productId,
            transactionId: body.transactionId
        )
        proof.expectedPurchaser = user.userId
        return proof
    }

    static func checkEmail(_ body: KeyPurchaseRequest, _ user: ServerUser) throws {
        if let email = body.userEmail, let own = user.email, own.lowercased() != email.lowercased() {
            throw APIError(.forbidden, "forbidden", "a purchase credits the token's own account")
        }
    }

    /// A required string field: present, not empty, at most 16 KiB.
    static func required(_ value: String?) throws -> String {
        guard let value, !value.isEmpty, value.utf8.count <= 16 * 1024 else {
            throw APIError(.badRequest, "invalid_input", "a required field is missing")
        }
        return value
    }
}
