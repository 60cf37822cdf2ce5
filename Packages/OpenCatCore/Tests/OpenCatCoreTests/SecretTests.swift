import Foundation
import OpenCatCore
import OpenCatTesting
import Testing

struct SecretTests {
    static let value = "sk_test_51SecretValueThatMustNeverLeak"

    @Test func everyRenderingHidesTheValue() throws {
        let secret = Secret(Self.value)
        var dumped = ""
        dump(secret, to: &dumped)
        let renderings = [
            secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped,
            String(describing: Mirror(reflecting: secret).children.map { $0 }),
            String(decoding: try JSONEncoder().encode(["key": secret]), as: UTF8.self),
            "\(PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: secret))",
        ]
        for rendering in renderings {
            #expect(!rendering.contains(Self.value), "leaked in: \(rendering)")
        }
        #expect(secret.description == "<redacted>")
        #expect(secret.revealed == Self.value)
    }

    @Test func decodingReadsThePlainValue() throws {
        let decoded = try JSONDecoder().decode([String: Secret<String>].self, from: Data(#"{"key":"abc"}"#.utf8))
        #expect(decoded["key"]?.revealed == "abc")
    }
}
