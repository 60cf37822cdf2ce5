import Foundation
import OpenCatCore
import StoreAdapters
import Testing

/// The one path from settings (server file, CLI flags, cassette `config`) to an adapter.
struct StoreAdapterConfigurationTests {
    let inline = StoreAdapterConfiguration.Context(allowsInlineSecrets: true)

    @Test func everyKnownStoreHasOneBuiltInAdapterDeclaringItsProofKinds() {
        var stores: [Store] = []
        for type in StoreAdapterConfiguration.builtIn { stores.append(type.verifiedStore) }
        #expect(stores == Store.known)
        #expect(
            StoreAdapterConfiguration.acceptedProofKinds(for: .apple)
                == [.appleSignedTransaction, .appleTransactionId, .appleSubscriptionStatus]
        )
        #expect(StoreAdapterConfiguration.acceptedProofKinds(for: .steam).contains(.steamAgreement))
        #expect(StoreAdapterConfiguration.acceptedProofKinds(for: Store(rawValue: "acme")).isEmpty)
        // No two stores accept the same kind.
        let kinds = Store.known.flatMap { StoreAdapterConfiguration.acceptedProofKinds(for: $0) }
        #expect(Set(kinds).count == kinds.count)
    }

    @Test func buildsEachStoresAdapterFromItsSettings() throws {
        let settings: [Store: [String: JSONValue]] = [
            .stripe: ["secretKey": "sk_test_x", "pastDue": "gracePeriod", "baseURL": "http://127.0.0.1:9"],
            .paypal: [
                "clientId": "id", "clientSecret": "secret", "payeeMerchantId": "M", "environment": "sandbox",
                "prices": ["p": ["amount": "4.99", "currency": "USD"]], "subscriptionPlans": ["P-1": "p"],
            ],
            .steam: ["appId": 480, "publisherKey": "KEY", "sandbox": true],
        ]
        for (store, values) in settings {
            let adapter = try StoreAdapterConfiguration(store: store, settings: values).makeAdapter(inline)
            #expect(adapter.store == store)
        }
        let paypal = try PayPalAdapter(
            configuration: StoreAdapterConfiguration(store: .paypal, settings: settings[.paypal]!),
            context: inline
        )
        #expect(paypal.configuration.prices["p"] == Money(decimalString: "4.99", currency: "USD"))
        #expect(paypal.configuration.environment == .sandbox)
        #expect(paypal.configuration.subscriptionPlans == ["P-1": "p"])
    }

    @Test func secretsComeFromOneOfInlineEnvironmentOrFile() throws {
        let stripe = { (values: [String: JSONValue], context: StoreAdapterConfiguration.Context) throws in
            try StoreAdapterConfiguration(store: .stripe, settings: values).secret("secretKey", context)
        }
        let environment = StoreAdapterConfiguration.Context(environment: ["STRIPE_KEY": "sk_env"])
        #expect(try stripe(["secretKeyEnv": "STRIPE_KEY"], environment).revealed == "sk_env")
        let file = StoreAdapterConfiguration.Context(readFile: { path, holdsSecret in
            #expect(path == "stripe.key" && holdsSecret)
            return Data("sk_file\n".utf8)
        })
        #expect(try stripe(["secretKeyFile": "stripe.key"], file).revealed == "sk_file")
        // A server's file never holds a secret; an unset variable and two sources are named by key.
        let inlineRefused = #expect(throws: StoreAdapterError.self) { try stripe(["secretKey": "sk_x"], environment) }
        #expect(inlineRefused?.code == .misconfigured && inlineRefused?.message.hasPrefix("secretKey:") == true)
        #expect(inlineRefused?.message.contains("sk_x") == false)
        let unset = #expect(throws: StoreAdapterError.self) { try stripe(["secretKeyEnv": "NOPE"], environment) }
        #expect(unset?.message == "secretKeyEnv: the environment variable NOPE is not set")
        let both = #expect(throws: StoreAdapterError.self) {
            try stripe(["secretKeyEnv": "STRIPE_KEY", "secretKeyFile": "f"], environment)
        }
        #expect(both?.message.hasPrefix("secretKeyEnv / secretKeyFile") == true)
    }

    @Test func thePriceParserIsExactAndStrict() throws {
        let price = try #require(StoreAdapterConfiguration.price(amount: "0.10", currency: "USD"))
        #expect(price.amount == Decimal(string: "0.1"))
        #expect(StoreAdapterConfiguration.price(amount: "4.99", currency: "usd") == nil)
        #expect(StoreAdapterConfiguration.price(amount: "4.99", currency: "USDT") == nil)
        #expect(StoreAdapterConfiguration.price(amount: "four", currency: "USD") == nil)
        let settings = StoreAdapterConfiguration(store: .paypal, settings: ["prices": ["p": ["amount": "4.99"]]])
        let error = #expect(throws: StoreAdapterError.self) { try settings.prices("prices") }
        #expect(error?.message.hasPrefix("prices.p:") == true)
    }

    @Test func badSettingsAreNamedByKey() {
        let cases: [(Store, [String: JSONValue], String)] = [
            (.steam, ["appId": -1, "publisherKey": "k"], "appId:"),
            (.steam, ["publisherKey": "k"], "appId:"),
            (.stripe, ["secretKey": "k", "baseURL": "http://example.com"], "baseURL:"),
            (.stripe, ["secretKey": "k", "appId": "a"], "appMetadataKey / appId:"),
            (
                .paypal, ["clientId": "i", "clientSecret": "s", "payeeMerchantId": "m", "environment": "prod"],
                "environment:"
            ),
            (.apple, ["bundleId": "b"], "rootCertificates:"),
            (Store(rawValue: "acme"), [:], "acme"),
        ]
        for (store, values, prefix) in cases {
            let error = #expect(throws: StoreAdapterError.self) {
                try StoreAdapterConfiguration(store: store, settings: values).makeAdapter(inline)
            }
            #expect(error?.code == .misconfigured)
            #expect(error?.message.hasPrefix(prefix) == true, "\(error?.message ?? "")")
        }
    }
}
