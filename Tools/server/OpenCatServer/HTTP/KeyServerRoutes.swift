import Foundation
import HTTPTypes
import Hummingbird
import KeyServerClient
import Logging
import OpenCatCore
import StoreAdapters

/// The key server API: purchases per platform, the wallet, features, the community pool and key sync.
extension OpenCatServerApplication {
    struct SpendBody: Decodable {
        var amount: Int64
        var feature: String
        var app: String
        var userId: String
    }

    struct SpendAnswer: Encodable {
        var remainingBalance: Int64
        var featureUnlocked: Bool
        var transactionId: String
    }

    struct WalletAnswer: Encodable {
        var userId: String
        var balance: Int64
        var unlockedFeatures: [String: [String]]
        var updatedAt: Date
    }

    struct HistoryItem: Encodable {
        var kind: String
        var id: String
        var amount: Int64
        var feature: String?
        var app: String?
        var date: Date
    }

    struct FeatureAnswer: Encodable {
        var id: String
        var appId: String
        var name: String
        var cost: Int64
    }

    struct UnlockAnswer: Encodable {
        var featureId: String
        var unlocked: Bool
        var remainingBalance: Int64
        var transactionId: String
    }

    struct UserBody: Decodable { var userId: String }
    struct UnlockBody: Decodable {
        var featureId: String
        var userId: String
    }
    struct DonateBody: Decodable {
        var amount: Int64
        var userId: String
    }
    struct ShareBody: Decodable {
        var amount: Int64
        var recipientEmail: String
        var userId: String
    }

    struct KeySyncAnswer: Encodable {
        var userEmail: String
        var availableKeys: [VULicenseKey]
        var syncTimestamp: Date
    }

    func addKeyServerRoutes(to router: Router<BasicRequestContext>) {
        for platform in ["apple", "google", "stripe", "paypal", "steam"] {
            router.post("/api/v1/keys/purchase/\(platform)") { request, _ in
                await answer { try await purchase(platform: platform, request) }
            }
        }
        router.get("/api/v1/keys/signing-keys") { _, _ in
            Self.json(
                .ok,
                [
                    "activeKid": AnyEncodable(settings.keyring?.activeKid ?? ""),
                    "keys": AnyEncodable(settings.keyring?.publicKeys ?? [:]),
                ]
            )
        }
        router.get("/api/v1/wallet/history/:userId") { request, context in
            await answer {
                let user = try authorize(request, context.decoded("userId"))
                let entries = try await ledger.entries(of: user.userId, limit: 1_000).reversed().map { entry in
                    HistoryItem(
                        kind: entry.kind,
                        id: entry.id,
                        amount: entry.amount,
                        feature: entry.kind == "spend" || entry.kind == "unlock" ? entry.reference : nil,
                        app: entry.app,
                        date: entry.createdAt
                    )
                }
                return Self.json(.ok, ["transactions": entries])
            }
        }
        router.get("/api/v1/wallet/:userId") { request, context in
            await answer { try await wallet(try authorize(request, context.decoded("userId"))) }
        }
        router.post("/api/v1/wallet/sync") { request, _ in
            await answer {
                let body = try await decode(UserBody.self, request)
                return try await wallet(try authorize(request, body.userId))
            }
        }
        router.post("/api/v1/wallet/spend") { request, _ in
            await answer {
                let key = try idempotencyKey(request)
                let body = try await decode(SpendBody.self, request)
                let user = try authorize(request, body.userId)
                let outcome = try await ledger.spend(
                    userId: user.userId,
                    amount: body.amount,
                    kind: "spend",
                    reference: body.feature,
                    app: body.app,
                    idempotencyKey: "spend:" + key
                )
                return Self.json(
                    .ok,
                    SpendAnswer(
                        remainingBalance: outcome.balance,
                        featureUnlocked: true,
                        transactionId: outcome.entry.id
                    )
                )
            }
        }
        router.get("/api/v1/apps/:appId/features") { request, context in
            await answer {
                _ = try authenticate(request)
                let appId = context.decoded("appId") ?? ""
                guard let features = settings.apps[appId] else {
                    throw Refusal(.notFound, "not_found", "no such app")
                }
                return Self.json(
                    .ok,
                    [
                        "features": features.map {
                            FeatureAnswer(id: $0.id, appId: appId, name: $0.name, cost: $0.cost)
                        }
                    ]
                )
            }
        }
        router.post("/api/v1/apps/:appId/unlock") { request, context in
            await answer {
                let key = try idempotencyKey(request)
                let body = try await decode(UnlockBody.self, request)
                let user = try authorize(request, body.userId)
                let appId = context.decoded("appId") ?? ""
                guard let feature = settings.apps[appId]?.first(where: { $0.id == body.featureId }) else {
                    throw Refusal(.notFound, "not_found", "no such feature")
                }
                let outcome = try await ledger.unlock(
                    userId: user.userId,
                    app: appId,
                    feature: feature.id,
                    cost: feature.cost,
                    idempotencyKey: "unlock:" + key
                )
                return Self.json(
                    .ok,
                    UnlockAnswer(
                        featureId: feature.id,
                        unlocked: true,
                        remainingBalance: outcome.balance,
                        transactionId: outcome.entryId ?? "unlock:\(appId):\(feature.id)"
                    )
                )
            }
        }
        router.get("/api/v1/apps/:appId/unlocked/:userId") { request, context in
            await answer {
                let user = try authorize(request, context.decoded("userId"))
                let appId = context.decoded("appId") ?? ""
                let features = try await ledger.unlockedFeatures(of: user.userId)[appId] ?? []
                return Self.json(.ok, ["features": features])
            }
        }
        router.post("/api/v1/community/donate") { request, _ in
            await answer {
                let key = try idempotencyKey(request)
                let body = try await decode(DonateBody.self, request)
                let user = try authorize(request, body.userId)
                let outcome = try await ledger.transfer(
                    from: user.userId,
                    to: communityPoolAccount,
                    amount: body.amount,
                    kind: "donation",
                    receivedKind: "donation_received",
                    idempotencyKey: "donate:" + key
                )
                return Self.json(
                    .ok,
                    [
                        "donated": -outcome.entry.amount, "remainingBalance": outcome.balance,
                        "poolTotal": outcome.recipientBalance,
                    ]
                )
            }
        }
        router.post("/api/v1/community/share") { request, _ in
            await answer {
                let key = try idempotencyKey(request)
                let body = try await decode(ShareBody.self, request)
                let user = try authorize(request, body.userId)
                guard let recipient = settings.users.user(email: body.recipientEmail) else {
                    throw Refusal(.notFound, "not_found", "no account has that email")
                }
                let outcome = try await ledger.transfer(
                    from: user.userId,
                    to: recipient.userId,
                    amount: body.amount,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: "share:" + key
                )
                return Self.json(
                    .ok,
                    [
                        "shared": AnyEncodable(-outcome.entry.amount),
                        "recipientEmail": AnyEncodable(body.recipientEmail),
                        "remainingBalance": AnyEncodable(outcome.balance),
                        "transactionId": AnyEncodable(outcome.entry.id),
                    ]
                )
            }
        }
        router.get("/api/v1/community/pool") { request, _ in
            await answer {
                _ = try authenticate(request)
                let pool = try await ledger.communityPool()
                return Self.json(
                    .ok,
                    [
                        "totalKeys": AnyEncodable(pool.totalKeys), "contributors": AnyEncodable(pool.contributors),
                        "updatedAt": AnyEncodable(clock()),
                    ]
                )
            }
        }
        router.get("/api/v1/keys/email/:email") { request, context in
            await answer {
                let user = try authenticate(request)
                let email = context.decoded("email") ?? ""
                try await limitSync(user)
                guard let own = user.email, own.lowercased() == email.lowercased() else {
                    throw Refusal(.forbidden, "forbidden", "keys sync for the token's own account only")
                }
                return try await keySync(user, email: own)
            }
        }
        router.get("/api/v1/keys/steam/:steamId") { request, context in
            await answer {
                let user = try authenticate(request)
                try await limitSync(user)
                guard let own = user.steamId, own == context.decoded("steamId") else {
                    throw Refusal(.forbidden, "forbidden", "keys sync for the token's own account only")
                }
                return try await keySync(user, email: user.email ?? "")
            }
        }
    }

    // MARK: Wallet and sync

    func wallet(_ user: ServerUser) async throws -> Response {
        let balance = try await ledger.balance(of: user.userId)
        let features = try await ledger.unlockedFeatures(of: user.userId)
        return Self.json(
            .ok,
            WalletAnswer(userId: user.userId, balance: balance, unlockedFeatures: features, updatedAt: clock())
        )
    }

    func keySync(_ user: ServerUser, email: String) async throws -> Response {
        let keys = try await ledger.licenses(of: user.userId).map(Self.licenseKey)
        return Self.json(.ok, KeySyncAnswer(userEmail: email, availableKeys: keys, syncTimestamp: clock()))
    }

    func limitSync(_ user: ServerUser) async throws {
        if let wait = await syncLimiter.take(user.userId) {
            var response = Self.error(.tooManyRequests, "rate_limited", "too many key syncs; retry later")
            response.headers[.retryAfter] = String(wait)
            throw Refusal(response)
        }
    }

    // MARK: Authentication

    /// The token's user, or 401.
    func authenticate(_ request: Request) throws -> ServerUser {
        guard let user = settings.users.user(for: request) else {
            throw Refusal(.unauthorized, "unauthorized", "The token is missing, invalid or expired.")
        }
        return user
    }

    /// The token's user when it is the one named, else 401 or 403.
    func authorize(_ request: Request, _ userId: String?) throws -> ServerUser {
        let user = try authenticate(request)
        guard let userId, user.userId == userId else {
            throw Refusal(.forbidden, "forbidden", "a user can only use their own wallet")
        }
        return user
    }

    /// The `Idempotency-Key` every call that moves keys carries.
    func idempotencyKey(_ request: Request) throws -> String {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!], !key.isEmpty, key.utf8.count <= 200
        else {
            throw Refusal(.badRequest, "invalid_input", "an Idempotency-Key header is required")
        }
        return key
    }
}

/// A value of any encodable type, for answers assembled as dictionaries.
struct AnyEncodable: Encodable, Sendable {
    let encodeValue: @Sendable (any Encoder) throws -> Void

    init<Value: Encodable & Sendable>(_ value: Value) {
        encodeValue = { encoder in
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    func encode(to encoder: any Encoder) throws { try encodeValue(encoder) }
}
