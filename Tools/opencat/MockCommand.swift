import ArgumentParser
import Foundation
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatConformanceSections
import OpenCatCore
import StoreAdapters

/// `opencat mock …`: run MockStores from the command line.
struct MockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run the mock stores.",
        subcommands: [MockServe.self]
    )
}

/// `opencat mock serve`: serve cassettes on 127.0.0.1 until interrupted.
struct MockServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve cassettes over HTTP on 127.0.0.1 (Stripe, PayPal, Google, Steam, App Store, OpenCat APIs).",
        discussion: """
            The server checks credentials the way each store does. Placeholders in the cassettes ({{stripe.secretKey}}, \
            …) take their values from --secrets (a JSON object of name → value); names it does not give are \
            generated for the session and written to --credentials-out, so a client knows what the mock accepts.

            --checkout also serves a Stripe Checkout and PayPal order approval simulator after the cassettes: \
            POST /v1/checkout/sessions and POST /v2/checkout/orders answer with hosted pages on this server \
            (/checkout/pay/{id}, /checkoutnow?token={id}); paying or approving there sends a signed \
            checkout.session.completed to --stripe-webhook (signed with the secret in the environment variable \
            named by --stripe-webhook-secret-env) and CHECKOUT.ORDER.APPROVED to --paypal-webhook.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).")
    var port: Int = 8080

    @Option(
        name: .customLong("root"),
        help: "The OpenCat checkout whose Fixtures/ to serve (default: found from the current folder)."
    )
    var root: String?

    @Option(name: .customLong("fixtures"), help: "A folder of cassettes (default: Fixtures/). Repeatable.")
    var fixtures: [String] = []

    @Option(name: .customLong("store"), help: "Serve only this store's cassettes (repeatable).")
    var stores: [String] = []

    @Option(name: .customLong("scenario"), help: "Serve only this scenario's cassettes (repeatable).")
    var scenarios: [String] = []

    @Option(
        name: .customLong("secrets"),
        help: "A JSON file of placeholder values (e.g. {\"stripe.secretKey\": \"sk_test_…\"})."
    )
    var secretsFile: String?

    @Option(
        name: .customLong("credentials-out"),
        help: "Where to write the placeholder values in force (JSON, mode 0600)."
    )
    var credentialsOut: String?

    @Flag(
        name: .customLong("checkout"),
        help: "Also serve the Stripe Checkout and PayPal order approval simulator (hosted pages, webhooks)."
    )
    var checkout = false

    @Option(
        name: .customLong("stripe-webhook"),
        help: "With --checkout: where to send checkout.session.completed (an http(s) URL)."
    )
    var stripeWebhook: String?

    @Option(
        name: .customLong("stripe-webhook-secret-env"),
        help: "With --stripe-webhook: the environment variable holding the endpoint's signing secret (whsec_…)."
    )
    var stripeWebhookSecretEnv: String?

    @Option(
        name: .customLong("paypal-webhook"),
        help: "With --checkout: where to send CHECKOUT.ORDER.APPROVED (an http(s) URL)."
    )
    var payPalWebhook: String?

    @Flag(
        name: .customLong("repeat"),
        help:
            "Answer each recorded interaction as often as it is asked (a demo: a retried purchase is verified again), not only the times its cassette allows."
    )
    var repeatAnswers = false

    @Option(
        name: .customLong("paypal-merchant-id"),
        help: "With --checkout: the payee merchant id of orders that name none (PayPalAdapter's payeeMerchantId)."
    )
    var payPalMerchantId: String = MockCheckout.defaultPayPalMerchantId

    func validate() throws {
        // ArgumentParser exits 64 (EX_USAGE) with this message; without it 70000 would bind another port.
        do {
            try MockStoreServer.validate(port: port)
        } catch {
            throw ValidationError("--port \(port) is not a TCP port: expected 0...65535 (0: any free port)")
        }
        if !checkout, stripeWebhook != nil || payPalWebhook != nil || stripeWebhookSecretEnv != nil {
            throw ValidationError("--stripe-webhook, --stripe-webhook-secret-env and --paypal-webhook need --checkout")
        }
        if (stripeWebhook == nil) != (stripeWebhookSecretEnv == nil) {
            throw ValidationError("--stripe-webhook and --stripe-webhook-secret-env go together")
        }
        for (flag, value) in [("--stripe-webhook", stripeWebhook), ("--paypal-webhook", payPalWebhook)] {
            if let value, Self.webhookURL(value) == nil {
                throw ValidationError("\(flag) \(value) is not an absolute http(s) URL")
            }
        }
        if payPalMerchantId.isEmpty || payPalMerchantId.contains(where: \.isWhitespace) {
            throw ValidationError("--paypal-merchant-id must be a non-empty id without spaces")
        }
    }

    /// An absolute http(s) URL with a host, or `nil`.
    static func webhookURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// The checkout simulator the flags ask for, or `nil` without `--checkout`.
    /// - Throws: `ValidationError` when the secret's environment variable is unset or not a Stripe signing secret
    ///   (the message names the variable, never its value).
    func makeCheckout() throws -> MockCheckout? {
        guard checkout else { return nil }
        var stripe: (url: URL, secret: Secret<String>)?
        if let stripeWebhook, let url = Self.webhookURL(stripeWebhook), let name = stripeWebhookSecretEnv {
            guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
                throw ValidationError("--stripe-webhook-secret-env: the environment variable \(name) is not set")
            }
            let secret = Secret(value)
            do {
                try StripeWebhookVerifier.validateSecret(secret)
            } catch {
                throw ValidationError("--stripe-webhook-secret-env \(name): \(error.message)")
            }
            stripe = (url, secret)
        }
        return MockCheckout(
            configuration: .init(
                stripeWebhook: stripe,
                payPalWebhook: payPalWebhook.flatMap(Self.webhookURL),
                payPalMerchantId: payPalMerchantId
            )
        )
    }

    func run() async throws {
        let checkout = try makeCheckout()
        let root = try root.map { URL(fileURLWithPath: $0) } ?? ConformanceCommand.findRoot()
        let folders =
            fixtures.isEmpty ? [root.appendingPathComponent("Fixtures")] : fixtures.map { URL(fileURLWithPath: $0) }
        var overrides: [String: String] = [:]
        if let secretsFile {
            guard let data = FileManager.default.contents(atPath: secretsFile),
                let object = try? JSONDecoder().decode([String: String].self, from: data)
            else { throw ValidationError("\(secretsFile): expected a JSON object of strings") }
            overrides = object
        }
        let catalogue = try ScenarioCatalogue.load(from: root.appendingPathComponent("Fixtures/scenarios.json"))
        let suite = try ConformanceSuite(
            catalogue: catalogue,
            cassetteFolders: folders,
            stores: Set(stores),
            scenarios: Set(scenarios)
        )
        // The sections' cassettes hold licenses signed with the run's keys.
        let credentials = SectionCredentials().applied(to: try suite.credentials.overriding(overrides))
        var cassettes: [Cassette] = []
        for folder in folders {
            for file in try Cassette.cassetteFiles(in: folder)
            where file.lastPathComponent != "scenarios.json"
                && !file.lastPathComponent.hasSuffix(".schema.json")
            {
                var cassette = try suite.loadCassette(file, credentials: credentials)
                if repeatAnswers {
                    // Far more answers than any session asks for; the order of the interactions still decides.
                    for index in cassette.interactions.indices { cassette.interactions[index].times = 1_000_000 }
                }
                if (stores.isEmpty || stores.contains(cassette.store.rawValue))
                    && (scenarios.isEmpty || scenarios.contains(cassette.scenario))
                {
                    cassettes.append(cassette)
                }
            }
        }
        if let credentialsOut {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            guard
                FileManager.default.createFile(
                    atPath: credentialsOut,
                    contents: try encoder.encode(credentials.variables),
                    attributes: [.posixPermissions: 0o600]
                )
            else { throw ValidationError("cannot write \(credentialsOut)") }
        }
        let server = MockStoreServer(
            cassettes: cassettes,
            credentials: credentials.mockCredentials(tokenPath: "/token"),
            port: port,
            checkout: checkout
        )
        let url = try await server.start()
        var banner =
            "MockStores listening on \(url.absoluteString) with \(cassettes.count) cassettes. Ctrl-C stops it.\n"
        if let checkout {
            banner += "Checkout simulator on: Stripe POST /v1/checkout/sessions, PayPal POST /v2/checkout/orders"
            banner +=
                "; Stripe webhooks \(checkout.configuration.stripeWebhook.map { "→ \($0.url.absoluteString)" } ?? "off")"
            banner +=
                ", PayPal webhooks \(checkout.configuration.payPalWebhook.map { "→ \($0.absoluteString)" } ?? "off").\n"
        }
        if credentialsOut == nil { banner += "(pass --credentials-out FILE to see the credentials the mock accepts)\n" }
        FileHandle.standardOutput.write(Data(banner.utf8))  // unbuffered: seen at once when piped
        try await withTaskCancellationHandler {
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        } onCancel: {
            Task { await server.stop() }
        }
    }
}
