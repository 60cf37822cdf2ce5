// KeyVaultBenchmark: offline license verification against the raw Ed25519 verify rate measured in the same run, and
// the time to open a vault holding 10,000 licenses.
// Run: swift run -c release KeyVaultBenchmark
import Crypto
import Foundation
import KeyServerClient
import OpenCatCore
import OpenCatStorage

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Calls per second of `body`, the best of `rounds` rounds of `iterations` calls.
func rate(_ iterations: Int, rounds: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    for _ in 0..<rounds {
        let start = clock.now
        for _ in 0..<iterations { try body() }
        best = max(best, Double(iterations) / seconds(start.duration(to: clock.now)))
    }
    return best
}

let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "bench")
let purchased = Date(timeIntervalSince1970: 1_795_348_800)
func human(_ index: Int) -> HumanKey {
    HumanKey(
        dataValues: (0..<11).map { UInt8((index >> ($0 % 8) + $0 * 7) % 32) },
        plan: PlanLevel(level: 1 + index % 9)!
    )
}
func payload(_ index: Int) -> LicensePayload {
    let key = human(index)
    return LicensePayload(key: key, plan: key.plan, owner: "user\(index)@example.com", purchasedAt: purchased, kid: "")
}

let license = try issuer.sign(payload(1))
let verifier = LicenseVerifier(keys: [issuer.kid: issuer.publicKey])
let now = purchased.addingTimeInterval(86_400)

// The raw rate: Ed25519 over the same signed bytes (`key/<payload part>`), nothing else.
let signedBytes = Data(license.rawValue.split(separator: ".")[0].utf8)
let signature = Data(base64URLDecoding: String(license.rawValue.split(separator: ".")[1]))!
let publicKey = issuer.publicKey
let raw = rate(4_000) { precondition(publicKey.isValidSignature(signature, for: signedBytes)) }
let parsed = try rate(4_000) { _ = try verifier.verify(license, at: now) }
let fromText = try rate(4_000) { _ = try verifier.verify(license.rawValue, at: now) }

// Opening a vault of 10,000 licenses: the sealed state read, opened and decoded.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyvault-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let keyProvider = StaticKeyProvider(key: SymmetricKey(size: .bits256))
let file = folder.appendingPathComponent("vault.sqlite")
do {
    let vault = try KeyVault(fileURL: file, keyProvider: keyProvider, userId: "bench", verifier: verifier)
    let keys = try (0..<10_000).map { index in
        let signed = try issuer.sign(payload(index))
        let payload = try signed.unverifiedPayload()
        return VULicenseKey(keyValue: payload.key, planType: payload.plan, purchaseDate: purchased, license: signed)
    }
    try await vault.store(keys)
}
let clock = ContinuousClock()
var openBest = Double.infinity
var count = 0
for _ in 0..<5 {
    let start = clock.now
    let vault = try KeyVault(fileURL: file, keyProvider: keyProvider, userId: "bench", verifier: verifier)
    count = vault.licenseCount
    precondition(vault.contains(human(9_999)))
    _ = vault.isUnlocked("feature", app: "app")
    openBest = min(openBest, seconds(start.duration(to: clock.now)) * 1000)
}

print(String(format: "raw Ed25519 verify:            %8.0f /s", raw))
print(String(format: "license verify (parsed):       %8.0f /s  (%.0f%% of raw)", parsed, parsed / raw * 100))
print(String(format: "license verify (from text):    %8.0f /s  (%.0f%% of raw)", fromText, fromText / raw * 100))
print(String(format: "open a vault of %d licenses: %8.1f ms (best of 5)", count, openBest))
let listStart = clock.now
let listed = try KeyVault(fileURL: file, keyProvider: keyProvider, userId: "bench", verifier: verifier).licenses.count
print(
    String(format: "open and list all %d keys:    %8.1f ms", listed, seconds(listStart.duration(to: clock.now)) * 1000)
)

extension Data {
    init?(base64URLDecoding text: String) {
        guard let data = Base64URL.decode(text) else { return nil }
        self = data
    }
}
