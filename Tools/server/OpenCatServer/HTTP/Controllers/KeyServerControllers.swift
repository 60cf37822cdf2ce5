import Foundation
import HTTPTypes
import Hummingbird
import KeyServerAPI
import OpenCatCore
import OpenCatLicense

// The key server API's controllers (keyserver.openapi.yaml): the wallet, an app's features, the community pool and
// key sync. Bodies and answers are KeyServerAPI's types, the ones KeyServerClient sends and reads; the ledger counts
// keys in `Int64`, the wire in `Int` (64-bit on every platform the server runs on). The group they are added to
// authenticates the key-server user (``KeyServerAuthenticator``).

/// The wallet: history pages, the balance, sync and spends.
struct WalletController: ServerController {
    let wallet: any WalletRepository
    /// The key-server users (keys shared to an email wait for its account).
    let users: BearerTokens
    let clock: @Sendable () -> Date

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("wallet/history/:userId") { request, context in
            let user = try context.owner()
            let query = request.uri.queryParameters
            let limit = query.get("limit").map { Int($0) ?? -1 } ?? 500
            guard (1...1_000).contains(limit) else {
                throw APIError(.badRequest, "invalid_input", "limit is 1…1000")
            }
            var after: Int64?
            if let cursor = query.get("cursor") {
                guard let seq = Self.historyCursor(cursor) else {
                    throw APIError(.badRequest, "invalid_input", "the cursor is not one this server gave")
                }
                after = seq
            }
            let page = try await wallet.history(of: user.userId, after: after, limit: limit)
            let entries = page.entries.map { entry in
                WalletTransaction(
                    kind: entry.kind,
                    id: entry.id,
                    amount: Int(entry.amount),
                    feature: entry.kind == "spend" || entry.kind == "unlock" ? entry.reference : nil,
                    app: entry.app,
                    date: entry.createdAt
                )
            }
            return Self.json(
                .ok,
                WalletHistoryPage(transactions: entries, nextCursor: page.nextCursor.map(Self.historyCursor))
            )
        }
        router.get("wallet/:userId") { request, context in
            try await walletState(try context.owner())
        }
        router.post("wallet/sync") { request, context in
            let user = try context.keyServerUser()
            let body = try await request.decode(as: WalletSyncRequest.self, context: context)
            try WalletController.own(user, body.userId)
            return try await walletState(user)
        }
        router.post("wallet/spend") { request, context in
            let user = try context.keyServerUser()
            let key = try IdempotencyKey.required(request)
            let body = try await request.decode(as: SpendRequest.self, context: context)
            try WalletController.own(user, body.userId)
            let outcome = try await wallet.spend(
                userId: user.userId,
                amount: Int64(body.amount),
                kind: "spend",
                reference: body.feature,
                app: body.app,
                idempotencyKey: key
            )
            // A spend pays for a use; it unlocks nothing. The answer says whether the feature it names is unlocked
            // for this user in that app (`POST /apps/{appId}/unlock` unlocks one).
            let unlocked = try await wallet.unlockedFeatures(of: user.userId)[body.app]?.contains(body.feature) ?? false
            return Self.json(
                .ok,
                SpendResult(
                    remainingBalance: Int(outcome.balance),
                    featureUnlocked: unlocked,
                    transactionId: outcome.entry.id
                )
            )
        }
    }

    func walletState(_ user: ServerUser) async throws -> Response {
        try await wallet.receivePending(user)
        let balance = try await wallet.balance(of: user.userId)
        let features = try await wallet.unlockedFeatures(of: user.userId)
        return Self.json(
            .ok,
            WalletState(
                userId: user.userId,
                balance: Int(max(balance, 0)),
                debt: Int(max(-balance, 0)),
                unlockedFeatures: features,
                updatedAt: clock()
            )
        )
    }

    /// The account keys shared to an email without an account wait in.
    static func pendingAccount(_ email: String) -> String { pendingAccountPrefix + email.lowercased() }

    /// A history cursor: the last entry's sequence number, opaque to clients.
    static func historyCursor(_ seq: Int64) -> String { "h" + String(seq, radix: 36) }

    static func historyCursor(_ text: String) -> Int64? {
        guard text.first == "h", text.count <= 16, let seq = Int64(text.dropFirst(), radix: 36), seq > 0 else {
            return nil
        }
        return seq
    }

    /// 403 unless the body names the token's own user.
    static func own(_ user: ServerUser, _ userId: String?) throws(APIError) {
        guard let userId, user.userId == userId else {
            throw APIError(.forbidden, "forbidden", "a user can only use their own wallet")
        }
    }
}

/// An app's features: the list, unlocking one, what a user unlocked.
struct FeaturesController: ServerController {
    let wallet: any WalletRepository
    /// The apps' features and their costs (`apps`).
    let apps: [String: [FeatureSetting]]

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("apps/:appId/features") { request, context in
            _ = try context.keyServerUser()
            let appId = context.decoded("appId") ?? ""
            guard let features = apps[appId] else {
                throw APIError(.notFound, "not_found", "no such app")
            }
            return Self.json(
                .ok,
                AppFeatureList(
                    features: features.map {
                        AppFeature(id: $0.id, appId: appId, name: $0.name, cost: Int($0.cost))
                    }
                )
            )
        }
        router.post("apps/:appId/unlock") { request, context in
            let user = try context.keyServerUser()
            let key = try IdempotencyKey.required(request)
            let body = try await request.decode(as: UnlockRequest.self, context: context)
            try WalletController.own(user, body.userId)
            let appId = context.decoded("appId") ?? ""
            guard let feature = apps[appId]?.first(where: { $0.id == body.featureId }) else {
                throw APIError(.notFound, "not_found", "no such feature")
            }
            let outcome = try await wallet.unlock(
                userId: user.userId,
                app: appId,
                feature: feature.id,
                cost: feature.cost,
                idempotencyKey: key
            )
            return Self.json(
                .ok,
                UnlockResult(
                    featureId: feature.id,
                    unlocked: true,
                    remainingBalance: Int(outcome.balance),
                    transactionId: outcome.entryId ?? "unlock:\(appId):\(feature.id)"
                )
            )
        }
        router.get("apps/:appId/unlocked/:userId") { request, context in
            let user = try context.owner()
            let appId = context.decoded("appId") ?? ""
            let features = try await wallet.unlockedFeatures(of: user.userId)[appId] ?? []
            return Self.json(.ok, UnlockedFeatureList(features: features))
        }
    }
}

/// The community pool: donations, shares by email and the pool's total.
struct CommunityController: ServerController {
    let wallet: any WalletRepository
    let users: BearerTokens
    let clock: @Sendable () -> Date

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.post("community/donate") { request, context in
            let user = try context.keyServerUser()
            let key = try IdempotencyKey.required(request)
            let body = try await request.decode(as: DonationRequest.self, context: context)
            try WalletController.own(user, body.userId)
            let outcome = try await wallet.transfer(
                from: user.userId,
                to: communityPoolAccount,
                amount: Int64(body.amount),
                kind: "donation",
                receivedKind: "donation_received",
                idempotencyKey: key
            )
            return Self.json(
                .ok,
                DonationResult(
                    donated: Int(-outcome.entry.amount),
                    remainingBalance: Int(outcome.balance),
                    poolTotal: Int(outcome.recipientBalance)
                )
            )
        }
        router.post("community/share") { request, context in
            let user = try context.keyServerUser()
            let key = try IdempotencyKey.required(request)
            let body = try await request.decode(as: ShareRequest.self, context: context)
            try WalletController.own(user, body.userId)
            guard let email = EmailAddress.normalized(body.recipientEmail) else {
                throw APIError(.badRequest, "invalid_input", "recipientEmail is an email address (name@example.com)")
            }
            // The answer is the same whether or not the email has an account (it tells nobody who is a
            // customer): keys for an email without one wait in its pending account until it has one.
            let recipient = users.user(email: email)?.userId ?? WalletController.pendingAccount(email)
            let outcome = try await wallet.transfer(
                from: user.userId,
                to: recipient,
                amount: Int64(body.amount),
                kind: "share",
                receivedKind: "received",
                idempotencyKey: key
            )
            return Self.json(
                .ok,
                ShareResult(
                    shared: Int(-outcome.entry.amount),
                    recipientEmail: body.recipientEmail,
                    remainingBalance: Int(outcome.balance),
                    transactionId: outcome.entry.id
                )
            )
        }
        router.get("community/pool") { _, context in
            _ = try context.keyServerUser()
            let pool = try await wallet.communityPool()
            return Self.json(
                .ok,
                CommunityPool(
                    totalKeys: Int(pool.totalKeys),
                    contributors: Int(pool.contributors),
                    updatedAt: clock()
                )
            )
        }
    }
}

/// Key sync for the token's own account, by email or Steam id, and the licence signing keys' public halves.
struct KeySyncController: ServerController {
    let wallet: any WalletRepository
    let keyring: LicenseKeyring?
    let licenseOfflineSeconds: TimeInterval
    let limits: RateLimits
    let clock: @Sendable () -> Date

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("keys/signing-keys") { _, _ in
            Self.json(.ok, SigningKeysAnswer(activeKid: keyring?.activeKid ?? "", keys: keyring?.publicKeys ?? [:]))
        }
        router.get("keys/email/:email") { request, context in
            let user = try context.keyServerUser()
            let email = context.decoded("email") ?? ""
            try await limits.limitSync(user)
            guard let own = user.email, own.lowercased() == email.lowercased() else {
                throw APIError(.forbidden, "forbidden", "keys sync for the token's own account only")
            }
            return try await keySync(user, email: own)
        }
        router.get("keys/steam/:steamId") { request, context in
            let user = try context.keyServerUser()
            try await limits.limitSync(user)
            guard let own = user.steamId, own == context.decoded("steamId") else {
                throw APIError(.forbidden, "forbidden", "keys sync for the token's own account only")
            }
            return try await keySync(user, email: user.email ?? "")
        }
    }

    func keySync(_ user: ServerUser, email: String) async throws -> Response {
        var keys = try await wallet.licenses(of: user.userId).map(KeyPurchaseController.licenseKey)
        var revocations: String?
        if let keyring = keyring {
            // Every sync renews the licenses' offline window.
            let until = clock().addingTimeInterval(licenseOfflineSeconds)
            keys = try keys.map { try keyring.renew($0, offlineUntil: until) }
            let list = try await wallet.revocations()
            let revoked = list.keys.compactMap { try? HumanKey($0) }
            revocations = try keyring.revocationList(
                serial: list.serial,
                revoking: revoked,
                issuedAt: clock()
            ).rawValue
        }
        return Self.json(
            .ok,
            VUUserKeySync(userEmail: email, availableKeys: keys, syncTimestamp: clock(), revocations: revocations)
        )
    }
}

/// `GET /api/v1/keys/signing-keys`: the licence signing keys' public halves by kid, and the active kid.
struct SigningKeysAnswer: Encodable {
    var activeKid: String
    var keys: [String: String]
}

extension WalletRepository {
    /// Moves keys shared to the user's email before it had an account into the user's wallet. A plain read first:
    /// the locking transfer runs only when keys wait (it checks the balance again under its lock).
    func receivePending(_ user: ServerUser) async throws {
        guard let email = user.email else { return }
        let account = WalletController.pendingAccount(email)
        guard try await balance(of: account) > 0 else { return }
        _ = try await release(account, to: user.userId)
    }
}
