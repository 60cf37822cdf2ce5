import Crypto
import Foundation
import KeyServerClient
import OpenCatCore
import OpenCatTesting
import X509

/// Writes a target's seed corpus from the project's own fixtures (run.sh does this once per corpus folder). The
/// signed seeds — App Store JWS, Stripe signatures, licenses — are made here with keys of this run, never committed.
struct SeedWriter {
    let repository: URL
    let folder: URL
    let appleRootPath: String?
    private(set) var count = 0

    init(repository: URL, folder: URL, appleRootPath: String?) {
        self.repository = repository
        self.folder = folder
        self.appleRootPath = appleRootPath
    }

    mutating func write(_ data: Data) throws {
        count += 1
        try data.write(to: folder.appendingPathComponent(String(format: "seed-%05d", count)))
    }

    /// Every cassette of a fixtures folder, parsed.
    func cassettes(_ store: String) -> [[String: Any]] {
        let directory = repository.appendingPathComponent("Fixtures/\(store)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasSuffix(".json"), name != "scenarios.json",
                let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
    }

    /// The JSON bodies a store answered in its cassettes, for requests whose path contains `fragment`.
    func responses(_ store: String, pathContaining fragment: String) -> [Data] {
        cassettes(store).flatMap { cassette -> [Data] in
            let interactions = cassette["interactions"] as? [[String: Any]] ?? []
            return interactions.compactMap { interaction in
                let request = interaction["request"] as? [String: Any]
                guard (request?["path"] as? String)?.contains(fragment) == true else { return nil }
                let response = interaction["response"] as? [String: Any]
                if let json = response?["json"] { return try? JSONSerialization.data(withJSONObject: json) }
                return (response?["body"] as? String).map { Data($0.utf8) }
            }
        }
    }

    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    mutating func writeSeeds(for target: FuzzTarget) throws {
        switch target {
        case .appleJWS, .appleNotification: try writeAppleSeeds(for: target)
        case .stripe:
            // Modes: 0, header line and payload; 1, an event the harness signs; 2, a PaymentIntent; 3, a subscription.
            let intents = responses("stripe", pathContaining: "/v1/payment_intents/")
            let subscriptions = responses("stripe", pathContaining: "/v1/subscriptions/")
            for (index, object) in (intents + subscriptions).enumerated() {
                let isIntent = index < intents.count
                let event = Self.json([
                    "id": "evt_fuzz_\(index)", "object": "event",
                    "type": isIntent ? "payment_intent.succeeded" : "customer.subscription.updated",
                    "created": Int64(Harness.signedDate.timeIntervalSince1970) - 5, "livemode": false,
                    "api_version": "2024-06-20",
                    "data": ["object": (try? JSONSerialization.jsonObject(with: object)) ?? [:]],
                ])
                try write(Data([0]) + Data((Harness.stripeSignature(event) + "\n").utf8) + event)
                try write(Data([1]) + event)
                try write(Data([isIntent ? 2 : 3]) + object)
            }
        case .paypal:
            let orders = responses("paypal", pathContaining: "/v2/checkout/orders/")
            let subscriptions = responses("paypal", pathContaining: "/v1/billing/subscriptions/")
            for (index, resource) in (orders + subscriptions).enumerated() {
                let type = index < orders.count ? "CHECKOUT.ORDER.APPROVED" : "BILLING.SUBSCRIPTION.ACTIVATED"
                let event = Self.json([
                    "id": "WH-FUZZ-\(index)", "event_type": type, "resource_type": "checkout-order",
                    "create_time": "2026-11-22T10:00:00Z",
                    "resource": (try? JSONSerialization.jsonObject(with: resource)) ?? [:],
                ])
                try write(Data([0]) + event)
            }
            for order in orders { try write(Data([1]) + order) }
        case .google:
            for body in responses("google", pathContaining: "/purchases/products/") { try write(Data([0]) + body) }
            for body in responses("google", pathContaining: "/purchases/subscriptionsv2/") {
                try write(Data([1]) + body)
            }
        case .steam:
            for body in responses("steam", pathContaining: "/QueryTxn") { try write(body) }
        case .cassette:
            let enumerator = FileManager.default.enumerator(atPath: repository.appendingPathComponent("Fixtures").path)
            while let path = enumerator?.nextObject() as? String {
                guard path.hasSuffix(".json"),
                    let data = FileManager.default.contents(
                        atPath: repository.appendingPathComponent("Fixtures/\(path)").path
                    )
                else { continue }
                try write(data)
            }
        case .license: try writeLicenseSeeds()
        case .appleReceipt:
            for seed in ReceiptSeeds.all() { try write(seed) }
        case .starknetRPC: try writeStarknetSeeds()
        }
    }

    /// Apple: the first byte is the mode: 0, a signed JWS (or notification body); 1, a payload the harness signs.
    mutating func writeAppleSeeds(for target: FuzzTarget) throws {
        let ca = try MockAppleCA()
        if let appleRootPath { try ca.rootCertificateDER.write(to: URL(fileURLWithPath: appleRootPath)) }
        let signedAt = Int64(Harness.signedDate.timeIntervalSince1970 - 60) * 1000
        for cassette in cassettes("apple") {
            let config = cassette["config"] as? [String: Any] ?? [:]
            for (_, payload) in config["signedPayloads"] as? [String: Any] ?? [:] {
                guard var object = payload as? [String: Any] else { continue }
                if object["bundleId"] != nil { object["bundleId"] = "dev.opencat.fuzz" }
                let jws = ca.signJWS(payload: Self.json(object))
                if target == .appleJWS {
                    try write(Data([0]) + Data(jws.utf8))
                    try write(Data([1]) + Self.json(object))
                    continue
                }
                guard object["transactionId"] != nil else { continue }
                for type in ["DID_RENEW", "REFUND", "SUBSCRIBED", "EXPIRED"] {
                    let notification = Self.json([
                        "notificationType": type, "notificationUUID": UUID().uuidString, "version": "2.0",
                        "signedDate": signedAt,
                        "data": [
                            "bundleId": "dev.opencat.fuzz", "environment": "Production",
                            "signedTransactionInfo": jws,
                        ],
                    ])
                    try write(Data([0]) + Self.json(["signedPayload": ca.signJWS(payload: notification)]))
                    try write(Data([1]) + notification)
                }
            }
        }
    }

    /// Licences: human keys and signed licences, with and without an expiry.
    mutating func writeLicenseSeeds() throws {
        let issuer = LicenseIssuer(privateKey: Harness.licenseKey, kid: "fuzz")
        for index in 0..<16 {
            let key = HumanKey(
                dataValues: (0..<11).map { UInt8(($0 * 7 + index) % 32) },
                plan: PlanLevel(level: 1 + index % 9)!
            )
            try write(Data(key.description.utf8))
            let payload = LicensePayload(
                key: key,
                plan: key.plan,
                owner: "fuzz@example.com",
                purchasedAt: Harness.signedDate.addingTimeInterval(-3_600),
                expiresAt: index % 2 == 0 ? nil : Harness.signedDate.addingTimeInterval(86_400),
                kid: "fuzz"
            )
            try write(Data(try issuer.sign(payload).rawValue.utf8))
        }
    }

    /// Starknet RPC: the mode is the method; the answers are the ChippiPay cassettes' RPC responses.
    mutating func writeStarknetSeeds() throws {
        let modes = [
            "starknet_chainId": 0, "starknet_getNonce": 1, "starknet_getTransactionReceipt": 2,
            "starknet_getTransactionStatus": 3,
        ]
        try write(Data([0]) + Data(#"{"jsonrpc":"2.0","id":1,"result":"0x534e5f4d41494e"}"#.utf8))
        for cassette in cassettes("chippipay") {
            for interaction in cassette["interactions"] as? [[String: Any]] ?? [] {
                let request = interaction["request"] as? [String: Any]
                let method = (request?["rpc"] as? [String: Any])?["method"] as? String
                guard let method, let mode = modes[method],
                    let json = (interaction["response"] as? [String: Any])?["json"]
                else { continue }
                try write(Data([UInt8(mode)]) + Self.json(json))
            }
        }
    }
}
