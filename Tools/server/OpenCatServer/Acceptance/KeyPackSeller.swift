import Foundation
import HTTPTypes
import KeyServerAPI
import Logging
import OpenCatCore
import OpenCatLicense
import StoreAdapters

/// What redeeming a verified key-pack purchase did.
struct KeyPackRedemption: Sendable {
    var outcome: RedemptionOutcome
    var pack: KeyPack
    var quantity: Int64
}

/// Sells key packs: the rules a verified purchase meets to credit one, and its redemption — once across all users,
/// with the pack's keys and freshly signed licences, and the sale recorded. The key-server purchase route and the
/// web portal's checkout both end here, so a purchase credits once whichever path reaches the ledger first.
struct KeyPackSeller: Sendable {
    /// The most packs one store transaction may carry (its keys and licences are minted in one go).
    static let maximumQuantity = 100

    let redemptions: any RedemptionRepository & SalesAuditRepository
    let packs: [String: KeyPack]
    let keyring: LicenseKeyring?
    let licenseOfflineSeconds: TimeInterval
    /// The rules a verified purchase meets before it credits a pack: made in an accepted environment, paid, a pack
    /// of this server, a quantity in 1…``maximumQuantity``, and (Stripe, with `prices`) the price × quantity charged.
    let acceptance: PurchaseAcceptance
    let clock: @Sendable () -> Date
    let logger: Logger

    init(
        settings: ServerSettings,
        redemptions: any RedemptionRepository & SalesAuditRepository,
        clock: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.redemptions = redemptions
        packs = settings.keyPacks
        keyring = settings.keyring
        licenseOfflineSeconds = settings.licenseOfflineSeconds
        let stripePrices = settings.stripePrices
        acceptance = PurchaseAcceptance([
            .environment(settings.acceptedEnvironments),
            .paid,
            .keyPack(settings.keyPacks),
            .quantity(in: 1...Self.maximumQuantity),
            .unitPrice { store in store == .stripe ? stripePrices : [:] },
        ])
        self.clock = clock
        self.logger = logger
    }

    /// Redeems a purchase the ``acceptance`` rules accepted, once across all users: mints its licences, credits the
    /// keys and records the sale (on a replay too, once per transaction: a sale lost to a crash comes back).
    func redeem(_ purchase: VerifiedPurchase, user: ServerUser) async throws -> KeyPackRedemption {
        guard let pack = packs[purchase.productId], let plan = PlanLevel(pack.plan) else {
            throw APIError(.unprocessableContent, "invalid_receipt", "the product is not a key pack of this server")
        }
        let quantity = Int64(purchase.quantity)
        let store = purchase.store
        let licenses = try mintLicenses(pack: pack, plan: plan, quantity: quantity, purchase, user: user)
        let outcome = try await redemptions.redeem(
            store: store.rawValue,
            transactionId: purchase.transactionId,
            userId: user.userId,
            grant: KeyGrant(
                keys: pack.keys * quantity,
                bonusKeys: pack.bonusKeys * quantity,
                communityKeys: pack.communityKeys * quantity,
                licenses: licenses,
                purchase: KeyGrant.Facts(
                    productId: purchase.productId,
                    environment: purchase.environment.rawValue,
                    price: purchase.price,
                    purchaseDate: purchase.purchaseDate
                )
            )
        )
        if !outcome.replayed {
            ServerMetrics.purchaseAccepted(store: store.rawValue, api: "keys")
            logger.info(
                "key pack redeemed",
                metadata: [
                    "store": "\(store.rawValue)", "product": "\(purchase.productId)", "keys": "\(outcome.entry.amount)",
                ]
            )
        }
        if let price = purchase.price {
            try await redemptions.recordSale(
                store: store.rawValue,
                transactionId: purchase.transactionId,
                userId: user.userId,
                productId: purchase.productId,
                price: price,
                quantity: quantity,
                at: purchase.purchaseDate
            )
        }
        return KeyPackRedemption(outcome: outcome, pack: pack, quantity: quantity)
    }

    /// The pack's licences for this purchase (none without a signing keyring), offline-valid for
    /// `licenseOfflineDays`.
    func mintLicenses(pack: KeyPack, plan: PlanLevel, quantity: Int64, _ purchase: VerifiedPurchase, user: ServerUser)
        throws -> [LicenseRecord]
    {
        guard let keyring, pack.licenses > 0 else { return [] }
        let minted = try keyring.mint(
            count: pack.licenses * Int(quantity),
            plan: plan,
            owner: user.email ?? user.userId,
            purchasedAt: purchase.purchaseDate,
            offlineUntil: clock().addingTimeInterval(licenseOfflineSeconds)
        )
        return minted.map { key in
            LicenseRecord(
                keyValue: key.keyValue.description,
                userId: user.userId,
                plan: plan.description,
                license: key.license.rawValue,
                store: purchase.store.rawValue,
                transactionId: purchase.transactionId,
                createdAt: purchase.purchaseDate
            )
        }
    }
}
