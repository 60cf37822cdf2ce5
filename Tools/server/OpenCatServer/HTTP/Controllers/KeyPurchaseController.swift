import Foundation
import Hummingbird
import KeyServerAPI
import OpenCatCore
import OpenCatLicense
import StoreAdapters

/// `POST /api/v1/keys/purchase/:store`: a key-pack purchase on any store the server has an adapter for, verified by
/// that adapter and accepted under the seller's rules, then redeemed once across all users.
struct KeyPurchaseController: ServerController {
    let desk: PurchaseDesk
    let seller: KeyPackSeller
    /// Where idempotency keys are claimed.
    let wallet: any WalletRepository
    let limits: RateLimits
    /// `bindPurchases`: the store must report the token's user as the buyer where ids are not secrets.
    let bindPurchases: Bool

    func addRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.post("keys/purchase/:store") { request, context in
            try await purchase(store: Store(rawValue: context.decoded("store") ?? ""), request, context)
        }
    }

    /// Verifies a key-pack purchase with its store, then redeems it once: the pack's keys, its licences.
    func purchase(store: Store, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let user = try context.keyServerUser()
        let idempotency = try IdempotencyKey.optional(request)
        try OpenCatRequestDecoder.checkContentType(request.headers[.contentType])
        let raw = try await Self.rawBody(request)
        let body = try OpenCatRequestDecoder.decode(KeyPurchaseRequest.self, json: raw)
        let adapter = try desk.adapter(for: store)
        if let idempotency {
            // The same key with another body (or for another store) is a conflict, never a second purchase.
            try await wallet.claimIdempotencyKey(
                userId: user.userId,
                key: idempotency,
                operation: "purchase:\(store.rawValue)",
                fingerprint: Fingerprint.hex(of: raw)
            )
        }
        try await limits.limitStoreCalls("user:\(user.userId)")
        let proof = try KeyPackProofForm.proof(body, for: adapter, user: user, bind: bindPurchases)
        let purchase: VerifiedPurchase
        do { purchase = try await desk.accept(proof, with: adapter, under: seller.acceptance) } catch let error
            as APIError where error.reason == StoreAdapterError.Code.purchaserMismatch.rawValue
        {
            try await refuseIfRedeemedByAnother(proof, with: adapter, user: user)
            throw error
        }
        let redemption = try await seller.redeem(purchase, user: user)
        let outcome = redemption.outcome
        let bonus = redemption.pack.bonusKeys * redemption.quantity
        return Self.json(
            .ok,
            KeyPurchaseResult(
                keysAdded: Int(outcome.entry.amount - bonus),
                bonusKeys: Int(bonus),
                communityDonated: Int(outcome.communityKeys),
                transactionId: purchase.transactionId,
                licenses: try outcome.licenses.map(Self.licenseKey)
            )
        )
    }

    /// A proof its store says another user bought: when that user redeemed it, the answer is the one any second
    /// redemption gets, 409 `already_redeemed` (the purchase is that user's either way; nothing of it is told).
    func refuseIfRedeemedByAnother(_ proof: PurchaseProof, with adapter: any StoreAdapter, user: ServerUser)
        async throws
    {
        var unbound = proof
        unbound.expectedPurchaser = nil
        guard let purchase = try? await adapter.verify(unbound),
            let owner = try await seller.redemptions.redeemer(
                store: adapter.store.rawValue,
                transactionId: purchase.transactionId
            ),
            owner != user.userId
        else { return }
        throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed")
    }

    /// A stored licence as the key server sends it.
    static func licenseKey(_ record: LicenseRecord) throws -> VULicenseKey {
        let key = try HumanKey(record.keyValue)
        return VULicenseKey(
            keyValue: key,
            planType: key.plan,
            purchaseDate: record.createdAt,
            license: try SignedLicense(record.license)
        )
    }
}
