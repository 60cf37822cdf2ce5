import Foundation
import OpenCatCore
import StarknetCrypto
import Testing

@testable import ChippiPayClient

/// Regressions from the review: each guards a way money could move twice, a value could be wrong, or a secret
/// could leak.
struct ReviewRegressionTests {
    @Test func moreThan77DecimalsIsRefusedNotClamped() {
        #expect(throws: StarknetCryptoError.self) { try TokenAmount(parsing: "1", decimals: 78) }
        #expect(throws: StarknetCryptoError.self) { try Quote(fiatAmount: 1, currency: "MXN", rate: 10, decimals: 78) }
        #expect((try? TokenAmount(parsing: "1", decimals: 77)) != nil)
    }

    @Test func nestJSErrorBodiesKeepTheirCode() {
        let error = ChippiPayError.from(
            status: 400,
            body: Data(#"{"statusCode":400,"message":["skuId must be a string","amount too low"],"code":4001}"#.utf8)
        )
        #expect(error.serverCode == "4001")
        #expect(error.message == "skuId must be a string; amount too low")
        #expect(error.code == .invalidRequest)
        #expect(ChippiPayError.from(status: 408, body: Data()).code == .timeout)
    }

    @Test func secretsAreRedactedBeforeTheMessageIsCut() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9." + String(repeating: "a", count: 300)
        let body = #"{"message":"\#(String(repeating: "x", count: 150)) bad token \#(jwt)","code":"\#(jwt)"}"#
        let error = ChippiPayError.from(status: 401, body: Data(body.utf8)) {
            $0.replacingOccurrences(of: jwt, with: "<redacted>")
        }
        #expect(!error.message.contains("eyJhbGciOiJIUzI1NiJ9"))
        #expect(!(error.serverCode ?? "").contains("eyJhbGciOiJIUzI1NiJ9"))
        #expect(!error.description.contains("aaaaaaaaaa"))
    }

    @Test func pollingPoliciesNeverTrap() {
        var policy = PollingPolicy()
        policy.maxAttempts = 0
        #expect(policy.attempts == 1)
        let huge = PollingPolicy(
            initialDelay: .seconds(Int64.max / 2),
            maximumDelay: .seconds(Int64.max),
            multiplier: 1000
        )
        #expect(huge.delay(after: 40) == .seconds(Int64.max))
        let negative = PollingPolicy(initialDelay: .seconds(-5), maximumDelay: .seconds(10))
        #expect(negative.delay(after: 128) == .zero)
        #expect(PollingPolicy.default.delay(after: 1) == .seconds(2))
        #expect(PollingPolicy.default.delay(after: 9) == .seconds(10))
    }

    @Test func aSKUsAmountCurrencyAndPatternsAreCheckedAndAnUnreadablePatternRefuses() {
        let sku = Sku(
            id: "s",
            name: "Telcel 50",
            fixedAmount: 50,
            currency: "MXN",
            referenceRegexValidation: "^[0-9]{10}$",
            amountRegexValidation: "^[0-9]+(\\.[0-9]{1,2})?$"
        )
        #expect(sku.accepts(amount: 50, currency: "mxn"))
        #expect(!sku.accepts(amount: 10, currency: "MXN"))
        #expect(!sku.accepts(amount: 50, currency: "USD"))
        #expect(sku.accepts(reference: "5512345678") && !sku.accepts(reference: "55123"))
        let broken = Sku(id: "b", name: "b", referenceRegexValidation: "([unclosed")
        #expect(!broken.accepts(reference: "anything"))
        let variable = Sku(id: "v", name: "v", amountRegexValidation: "^[0-9]+$")
        #expect(
            variable.accepts(amount: 120, currency: "MXN")
                && !variable.accepts(amount: Decimal(string: "1.5")!, currency: "MXN")
        )
    }

    @Test func deeplyNestedTypesAreRefusedNotRecursedWithoutEnd() throws {
        var types: [String: [TypedDataField]] = [
            "StarknetDomain": [
                TypedDataField(name: "name", type: "shortstring"), TypedDataField(name: "version", type: "shortstring"),
                TypedDataField(name: "chainId", type: "shortstring"),
                TypedDataField(name: "revision", type: "shortstring"),
            ]
        ]
        for level in 0..<500 { types["T\(level)"] = [TypedDataField(name: "next", type: "T\(level + 1)")] }
        types["T500"] = [TypedDataField(name: "value", type: "felt")]
        let data = TypedData(
            types: types,
            primaryType: "T0",
            domain: [
                "name": .string("x"), "version": .string("1"), "chainId": .string("SN_MAIN"), "revision": .string("1"),
            ],
            message: ["next": .object([:])]
        )
        #expect(throws: StarknetCryptoError.self) { try data.messageHash(account: 1) }
    }

    @Test func privateKeysShowNothingThroughMirror() throws {
        let key = try StarkPrivateKey(hex: Secret("0x3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("3c1e9550"))
        #expect(Mirror(reflecting: key).children.isEmpty)
    }
}
