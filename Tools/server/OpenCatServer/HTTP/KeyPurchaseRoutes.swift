import Crypto
import Foundation
import Hummingbird
import KeyServerAPI
import Logging
import OpenCatCore
import OpenCatLicense
import StoreAdapters

/// Key-pack purchases: the proof verified with its store through StoreAdapters, then redeemed once across all users
/// with the pack's keys and freshly signed licenses.
extension OpenCatServerApplication {
    /// The most packs one store transaction may carry (its keys and licenses are minted in one go).
    static let maximumQuantity = 100

    // MARK: Purchases

    /// Verifies a key-pack purchase with its store, then redeems it once: the pack's keys, its licenses.
    func purchase(store: Store, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let user = try context.keyServerUser()
        let idempotency = try optionalIdempotencyKey(request)
        try OpenCatRequestDecoder.checkContentType(request.headers[.contentType])
        let raw = try await rawBody(request)
        let body = try OpenCatRequestDecoder.decode(KeyPurchaseRequest.self, json: raw)
        guard let adapter = adapters[store] else {
            throw APIError(.notFound, "not_found", "this server does not sell on \(store.rawValue)")
        }
        if let idempotency {
            // The same key with another body (or for another store) is a conflict, never a second purchase.
            try await ledger.claimIdempotencyKey(
                userId: user.userId,
                key: idempotency,
                operation: "purchase:\(store.rawValue)",
                fingerprint: Fingerprint.hex(of: raw)
            )
        }
        try await limitStoreCalls("user:\(user.userId)")
        let proof = try keyPackProof(store, body, user: user, adapter: adapter)
        let purchase: VerifiedPurchase
        do {
            purchase = try await adapter.verify(proof)
            try purchase.requireEnvironment(in: settings.environments(store))
        } catch { throw refused(error, store: adapter.store) }
        let redemption = try await redeemKeyPack(purchase, store: store, user: user)
        let outcome = redemption.outcome
        let pack = redemption.pack
        let quantity = redemption.quantity
        return Self.json(
            .ok,
            KeyPurchaseResult(
                keysAdded: Int(outcome.entry.amount - pack.bonusKeys * quantity),
                bonusKeys: Int(pack.bonusKeys * quantity),
                communityDonated: Int(outcome.communityKeys),
                transactionId: purchase.transactionId,
                licenses: try outcome.licenses.map(Self.licenseKey)
            )
        )
    }

    /// The store proof a key-pack purchase names, bound to its buyer: the token's own account (email, Steam id) and,
    /// for stores whose ids are not secrets, the buyer the store must report.
    func keyPackProof(_ store: Store, _ body: KeyPurchaseRequest, user: ServerUser, adapter: any StoreAdapter) throws
        -> PurchaseProof
    {
        guard let platform = Platform(rawValue: store.rawValue) else {
            return try otherStoreProof(store, body, user: user, adapter: adapter)
        }
        var proof: PurchaseProof
        switch platform {
        case .apple:
            proof = PurchaseProof(
                store: platform.store,
                kind: .appleSignedTransaction,
                token: Secret(try field(body.transaction))
            )
        case .google:
            proof = PurchaseProof(
                store: platform.store,
                kind: .googleProductPurchaseToken,
                token: Secret(try field(body.purchaseToken)),
                productId: try field(body.productId)
            )
        case .stripe:
            proof = PurchaseProof(
                store: platform.store,
                kind: .stripePaymentIntent,
                token: Secret(try field(body.paymentIntentId))
            )
        case .paypal:
            proof = PurchaseProof(store: platform.store, kind: .paypalOrder, token: Secret(try field(body.paymentId)))
        case .steam:
            let steamId = try field(body.steamId)
            guard steamId.count <= 20, steamId.allSatisfy(\.isASCII), UInt64(steamId) != nil else {
                throw APIError(.badRequest, "invalid_input", "a Steam id is a 64-bit number")
            }
            guard user.steamId == steamId else {
                throw APIError(.forbidden, "forbidden", "a purchase credits the token's own Steam account")
            }
            proof = PurchaseProof(
                store: platform.store,
                kind: .steamTransaction,
                token: Secret(try field(body.transactionId)),
                transactionId: body.transactionId
            )
            proof.expectedPurchaser = steamId
        }
        if platform != .steam, let email = body.userEmail, let own = user.email, own.lowercased() != email.lowercased()
        {
            throw APIError(.forbidden, "forbidden", "a purchase credits the token's own account")
        }
        // Order and payment ids are not secrets: the store must say the purchase was made for this user.
        if settings.bindPurchases, [.google, .stripe, .paypal].contains(platform) {
            proof.expectedPurchaser = user.userId
        }
        return proof
    }

    /// The proof of a purchase on a store beside the five: the kind its adapter reads and the proof, bound to the
    /// token's own account (the adapter is asked for this user as the buyer).
    func otherStoreProof(_ store: Store, _ body: KeyPurchaseRequest, user: ServerUser, adapter: any StoreAdapter) throws
        -> PurchaseProof
    {
        let kind = PurchaseProof.Kind(rawValue: try field(body.kind))
        guard Self.accepts(kind, from: adapter) else {
            throw APIError(.unprocessableContent, "invalid_receipt", "this server does not verify that proof")
        }
        if let email = body.userEmail, let own = user.email, own.lowercased() != email.lowercased() {
            throw APIError(.forbidden, "forbidden", "a purchase credits the token's own account")
        }
        var proof = PurchaseProof(
            store: store,
            kind: kind,
            token: Secret(try field(body.proof)),
            productId: body.productId,
            transactionId: body.transactionId
        )
        proof.expectedPurchaser = user.userId
        return proof
    }

    /// What redeeming a verified key-pack purchase did.
    struct KeyPackRedemption {
        var outcome: RedemptionOutcome
        var pack: KeyPack
        var quantity: Int64
    }

    /// Redeems a verified key-pack purchase once across all users: checks it is paid, a pack of this server, its
    /// quantity and (Stripe) its price, mints its licences, credits the keys and records the sale. The app's
    /// purchase route and the web portal's checkout both end here, so a purchase credits once whichever path
    /// reaches the ledger first.
    func redeemKeyPack(_ purchase: VerifiedPurchase, store: Store, user: ServerUser) async throws
        -> KeyPackRedemption
    {
        let (pack, plan, quantity) = try acceptedKeyPack(purchase, store: store)
        let licenses = try mintLicenses(
            pack: pack,
            plan: plan,
            quantity: quantity,
            purchase,
            store: store,
            user: user
        )
        let outcome = try await ledger.redeem(
            store: store.rawValue,
            transactionId: purchase.transactionId,
            userId: user.userId,
            grant: KeyGrant(
                keys: pack.keys * quantity,
                bonusKeys: pack.bonusKeys * quantity,
                communityKeys: pack.communityKeys * quantity,
                licenses: licenses
            )
        )
        if !outcome.replayed {
            ServerMetrics.purchaseAccepted(store: store.rawValue, api: "keys")
            logger.info(
                "key pack redeemed",
                metadata: [
                    "store": "\(store.rawValue)", "product": "\(purchase.productId)",
                    "keys": "\(outcome.entry.amount)",
                ]
            )
        }
        // Recorded on a replay too (once per transaction): a sale lost to a crash after the redemption comes back.
        if let price = purchase.price {
            try await ledger.recordSale(
                store: store.rawValue,
                transactionId: purchase.transactionId,
                userId: user.userId,
                productId: purchase.productId,
                price: price,
                at: purchase.purchaseDate
            )
        }
        return KeyPackRedemption(outcome: outcome, pack: pack, quantity: quantity)
    }

    /// The rules a verified purchase meets before it credits a key pack: paid, a pack of this server, a quantity in
    /// 1…``maximumQuantity``, and (Stripe, with `prices`) the price × quantity charged.
    func acceptedKeyPack(_ purchase: VerifiedPurchase, store: Store) throws -> (
        pack: KeyPack, plan: PlanLevel, quantity: Int64
    ) {
        guard purchase.state == .active else {
            throw APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the purchase is \(purchase.state.rawValue), not paid",
                reason: StoreAdapterError.Code.notPaid.rawValue
            )
        }
        guard let pack = settings.keyPacks[purchase.productId], let plan = PlanLevel(pack.plan) else {
            throw APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the product is not a key pack of this server",
                reason: StoreAdapterError.Code.productMismatch.rawValue
            )
        }
        guard (1...Self.maximumQuantity).contains(purchase.quantity) else {
            throw APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the purchase's quantity is outside 1…\(Self.maximumQuantity)",
                reason: StoreAdapterError.Code.invalidProof.rawValue
            )
        }
        let quantity = Int64(purchase.quantity)
        if store == .stripe, let unit = settings.stripePrices[purchase.productId] {
            // Stripe's PaymentIntent says what was charged, not what the product costs: the server compares.
            let expected = Money(amount: unit.amount * Decimal(quantity), currency: unit.currency.uppercased())
            guard let paid = purchase.price, paid.currency.uppercased() == expected.currency,
                paid.amount == expected.amount
            else {
                throw refused(
                    StoreAdapterError(
                        .productMismatch,
                        store: .stripe,
                        "the payment is not the product's price",
                        storeReason: "amount"
                    ),
                    store: .stripe
                )
            }
        }
        return (pack, plan, quantity)
    }

    /// The pack's licences for this purchase (none without a signing keyring), offline-valid for
    /// `licenseOfflineDays`.
    func mintLicenses(
        pack: KeyPack,
        plan: PlanLevel,
        quantity: Int64,
        _ purchase: VerifiedPurchase,
        store: Store,
        user: ServerUser
    ) throws -> [LicenseRecord] {
        var licenses: [LicenseRecord] = []
        if let keyring = settings.keyring, pack.licenses > 0 {
            let minted = try keyring.mint(
                count: pack.licenses * Int(quantity),
                plan: plan,
                owner: user.email ?? user.userId,
                purchasedAt: purchase.purchaseDate,
                offlineUntil: clock().addingTimeInterval(settings.licenseOfflineSeconds)
            )
            licenses = minted.map { key in
                LicenseRecord(
                    keyValue: key.keyValue.description,
                    userId: user.userId,
                    plan: plan.description,
                    license: key.license.rawValue,
                    store: store.rawValue,
                    transactionId: purchase.transactionId,
                    createdAt: purchase.purchaseDate
                )
            }
        }
        return licenses
    }

    static func licenseKey(_ record: LicenseRecord) throws -> VULicenseKey {
        let key = try HumanKey(record.keyValue)
        return VULicenseKey(
            keyValue: key,
            planType: key.plan,
            purchaseDate: record.createdAt,
            license: try SignedLicense(record.license)
        )
    }

    func field(_ value: String?) throws -> String {
        guard let value, !value.isEmpty, value.utf8.count <= 16 * 1024 else {
            throw APIError(.badRequest, "invalid_input", "a required field is missing")
        }
        return value
    }

}
