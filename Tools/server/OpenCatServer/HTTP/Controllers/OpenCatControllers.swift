import Foundation
import HTTPTypes
import Hummingbird
import OpenCatCore
import OpenCatServerAPI
import StoreAdapters

// The OpenCat API (docs/api/opencat-server.md): what the SDK speaks in server mode, in OpenCatServerAPI's types (the
// SDK's server connector sends and reads the same). The group these controllers are added to authenticates the app's
// key (``AppKeyAuthenticator``).

/// `GET /v1/subscribers/:appUserId`: what an app user may use, as the caller's key may see it.
struct SubscribersController: ServerController {
    let subscribers: any SubscriberRepository
    let clock: @Sendable () -> Date

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("subscribers/:appUserId") { _, context in
            let caller = try context.appCaller()
            return try await subscriber(appUserId: context.decoded("appUserId") ?? "", caller)
        }
    }

    func subscriber(appUserId: String, _ caller: OpenCatCaller) async throws -> Response {
        guard !appUserId.isEmpty, appUserId.utf8.count <= 256 else {
            throw APIError(.badRequest, "invalid_input", "an app user id is required")
        }
        let api = caller.settings
        let state = try await subscribers.subscriber(appUserId)
        // The public app key is in every copy of the app: it reads what grants access now, never the history (what
        // expired or was refunded) nor who bought it. The secret key reads everything.
        // Promotional entitlements an operator granted read as transactions of the store `promotional`, so the SDK
        // grants them as it grants a purchase, until they expire or are revoked.
        let now = clock()
        let promotions = try await subscribers.promotionalEntitlements(of: appUserId)
        let all = state.transactions + promotions.map { $0.transaction(now: now) }
        let transactions = caller.isSecret ? all : all.compactMap(Self.redacted)
        var map: [String: [String]] = [:]
        for transaction in transactions {
            if let entitlements = api.entitlements[transaction.productId] { map[transaction.productId] = entitlements }
        }
        for promotion in promotions where transactions.contains(where: { $0.transactionId == promotion.id }) {
            map[PromotionalEntitlement.productId(promotion.entitlement)] = [promotion.entitlement]
        }
        return Self.json(
            .ok,
            ServerAPI.SubscriberResponse(
                requestDate: clock(),
                subscriber: ServerAPI.Subscriber(
                    appUserId: appUserId,
                    firstSeenAt: state.firstSeenAt,
                    transactions: transactions,
                    entitlementMap: map
                )
            )
        )
    }

    /// What a public-key caller sees of a transaction: only one that grants access now (what the SDK needs), without
    /// its buyer; what expired or was refunded is history, for secret keys.
    static func redacted(_ transaction: TransactionInfo) -> TransactionInfo? {
        guard [.active, .gracePeriod, .billingRetry].contains(transaction.status) else { return nil }
        var visible = transaction
        visible.purchaser = nil
        return visible
    }
}

/// `GET /v1/offerings`: the offerings of the caller's app.
struct OfferingsController: ServerController {
    let clock: @Sendable () -> Date

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("offerings") { _, context in
            let caller = try context.appCaller()
            return Self.json(
                .ok,
                ServerAPI.OfferingsResponse(requestDate: clock(), offerings: caller.settings.offerings)
            )
        }
    }
}

/// `POST /v1/receipts`: a proof on any store the server has an adapter for, bound to the app user who posts it,
/// verified by that adapter and accepted under the receipt rules, then recorded; the answer is the subscriber.
struct ReceiptsController: ServerController {
    let desk: PurchaseDesk
    let subscribers: any SubscriberRepository
    /// Where a Steam session ticket is used once.
    let redemptions: any RedemptionRepository
    let limits: RateLimits
    /// The answer after a receipt.
    let answer: SubscribersController
    /// `bindPurchases`, `requireAppleAccountToken`, `steamTicketIdentity`, the accepted environments.
    let settings: ReceiptSettings

    /// What the receipt rules read from the server's settings.
    struct ReceiptSettings: Sendable {
        var bindPurchases: Bool
        var requireAppleAccountToken: Bool
        var steamTicketIdentity: String
        var environments: [Store: Set<VerifiedPurchase.Environment>]
    }

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.post("receipts") { request, context in
            let caller = try context.appCaller()
            let body = try await request.decode(as: ServerAPI.ReceiptPost.self, context: context)
            guard !body.appUserId.isEmpty, body.appUserId.utf8.count <= 256 else {
                throw APIError(.badRequest, "invalid_input", "an app user id is required")
            }
            guard let adapter = desk.adapters[body.store], PurchaseDesk.accepts(body.kind, from: adapter) else {
                throw APIError(.unprocessableContent, "invalid_receipt", "this server does not verify that proof")
            }
            try await limit(body, caller: caller, request, context)
            let proof = try await proof(body, caller: caller, adapter: adapter)
            let purchase = try await desk.accept(
                proof,
                with: adapter,
                under: PurchaseAcceptance([
                    .reportedPurchaser(body.appUserId), .environment(settings.environments), .product(body.productId),
                ])
            )
            try await subscribers.record(
                purchase.transactionInfo,
                appUserId: body.appUserId,
                storeTime: purchase.verifiedAt,
                price: purchase.price
            )
            ServerMetrics.purchaseAccepted(store: adapter.store.rawValue, api: "receipts")
            return try await answer.subscriber(appUserId: body.appUserId, caller)
        }
    }

    /// A receipt that may reach a store's API counts: per app user, per client address (the public key is in every
    /// copy of the app, so no stranger can use up a buyer's limit), under the key's ceiling.
    func limit(
        _ body: ServerAPI.ReceiptPost,
        caller: OpenCatCaller,
        _ request: Request,
        _ context: ServerRequestContext
    )
        async throws
    {
        var buckets = [("receipt-user:\(body.appUserId)", limits.storeLimit)]
        if !caller.isSecret {
            buckets.append(("receipt-client:\(limits.clientAddress(request, context))", limits.clientLimit))
        }
        buckets.append(("receipt-key:\(caller.keyHash)", limits.apiKeyLimit))
        try await limits.limit(buckets)
    }

    /// The proof a receipt names, bound to the app user who posts it.
    func proof(_ body: ServerAPI.ReceiptPost, caller: OpenCatCaller, adapter: any StoreAdapter) async throws
        -> PurchaseProof
    {
        var proof = PurchaseProof(
            store: body.store,
            kind: body.kind,
            token: Secret(try KeyPackProofForm.required(body.proof)),
            productId: body.productId,
            transactionId: body.transactionId,
            context: body.context ?? [:]
        )
        // A built-in adapter that reads the buyer from the store, or any adapter the server was given beside them.
        if settings.bindPurchases, StoreAdapterConfiguration.carriesAppUserId(body.store) || !body.store.isKnown {
            proof.expectedPurchaser = body.appUserId
        }
        try await bind(&proof, to: body.appUserId, caller: caller, adapter: adapter)
        return proof
    }

    /// Binds a receipt to the app user who posts it (docs/SECURITY.md, "Receipts belong to their buyer"): store ids
    /// are not secrets, so whoever posts one first would otherwise own it.
    /// - Apple: a bare transaction id (a lookup, a subscription status) from the public key must carry the app user's
    ///   `appAccountToken` (the app user id, when it is a UUID); a signed transaction must when
    ///   `requireAppleAccountToken` is on, and may carry no other.
    /// - Steam: the order's `steamid` must be the player a session ticket (`context.steamAuthTicket`, from
    ///   `GetAuthTicketForWebApi`) proves; a secret-key caller may name the player it authenticated
    ///   (`context.steamId`) instead.
    func bind(_ proof: inout PurchaseProof, to appUserId: String, caller: OpenCatCaller, adapter: any StoreAdapter)
        async throws
    {
        switch proof.store {
        case .apple:
            let token = UUID(uuidString: appUserId)?.uuidString.lowercased()
            let bare = proof.kind != .appleSignedTransaction
            if (bare && !caller.isSecret) || settings.requireAppleAccountToken {
                guard let token else {
                    throw APIError(
                        .unprocessableContent,
                        "invalid_receipt",
                        "this proof is bound by appAccountToken: the app user id must be the UUID the app set",
                        reason: StoreAdapterError.Code.purchaserMismatch.rawValue
                    )
                }
                proof.expectedPurchaser = token
            }
        case .steam:
            if let ticket = proof.context["steamAuthTicket"], let steam = adapter as? SteamAdapter {
                proof.expectedPurchaser = try await steamPlayer(ticket, named: proof.context["steamIdentity"], steam)
            } else if caller.isSecret, let steamId = proof.context["steamId"], !steamId.isEmpty {
                proof.expectedPurchaser = steamId
            } else {
                throw APIError(
                    .unprocessableContent,
                    "invalid_receipt",
                    "a Steam receipt needs the player's session ticket (context.steamAuthTicket)",
                    reason: StoreAdapterError.Code.purchaserMismatch.rawValue
                )
            }
        default:
            break
        }
    }

    /// The Steam account a session ticket proves, checked by Steam for this server's identity
    /// (``ServerSettings/steamTicketIdentity``) and accepted once: a ticket made for another identity, or for none,
    /// and a ticket used before (here or on another instance) are refused.
    func steamPlayer(_ ticket: String, named identity: String?, _ steam: SteamAdapter) async throws -> String {
        let expected = settings.steamTicketIdentity
        guard identity == nil || identity == expected else {
            throw APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the Steam ticket must be made for this server's identity",
                reason: "ticketIdentity"
            )
        }
        let player: String
        do {
            player = try await steam.authenticateUserTicket(Secret(ticket), identity: expected).steamId
        } catch { throw desk.refused(error, store: .steam) }
        guard
            try await redemptions.useOnce(
                kind: "steam_ticket",
                digest: Fingerprint.hex(of: ticket.lowercased()),
                subject: player
            )
        else {
            throw APIError(
                .unprocessableContent,
                "invalid_receipt",
                "this Steam ticket was used before: get a new one for each request",
                reason: "ticketAlreadyUsed"
            )
        }
        return player
    }
}

/// An app's API key, as ``AppKeyAuthenticator`` found it.
public struct OpenCatCaller: Sendable {
    /// The OpenCat API's settings (entitlements, offerings).
    public var settings: OpenCatAPISettings
    /// Whether it is a secret key (the app's backend), which reads whole histories.
    public var isSecret: Bool
    /// The key's SHA-256 (rate limits count per key).
    public var keyHash: String
}
