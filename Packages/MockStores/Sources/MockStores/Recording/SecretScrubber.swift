import Foundation
public import OpenCatCore

/// Turns exchanges recorded against a real API into a cassette with no secret in it.
///
/// Every credential, token, key, account id and e-mail address is found (by where it travels: `Authorization`,
/// `x-webapi-key`, `access_token`, `purchaseToken`, `email`, a Google Play `tokens/{token}` path segment, …; and by
/// its shape: `sk_live_…`, `whsec_…`, `ocat_…`, JWTs, PEM keys, `AIza…`, `ya29.…`, `A21AA…`, 32-hex keys, e-mail
/// addresses) and replaced everywhere it occurs (paths, queries, bodies, response headers, `input`, `config`):
///
/// - credentials the test harness generates become its placeholders, so the cassette replays behind MockStores'
///   built-in auth checks: `{{stripe.secretKey}}`, `{{paypal.clientId}}`, `{{paypal.clientSecret}}`,
///   `{{google.clientEmail}}`, `{{apple.issuerId}}`, `{{apple.keyId}}`, `{{steam.publisherKey}}`,
///   `{{opencat.apiKey}}`, `{{keyserver.token}}`, `{{llmkeys.token}}`, `{{chippipay.apiKey}}`,
///   `{{chippipay.secretKey}}`;
/// - data the App Store signed becomes `{{apple.signed.NAME}}` with its payload under `config.signedPayloads.NAME`,
///   re-signed by `MockAppleCA` when the cassette loads;
/// - anything else becomes a made-up stand-in of the same role, the same one at every occurrence
///   (`recorded-1@example.com`, `recorded-purchase-token-1`, `recorded-access-token-1`, an account id of the same
///   shape), so paths and bodies still agree with each other.
///
/// Credential headers (`Authorization`, `x-webapi-key`, `x-api-key`, cookies, …) are never written: the cassette
/// matches requests without them and MockStores checks each store's credentials itself. Request headers other than
/// ``recordedRequestHeaders`` and response headers other than ``recordedResponseHeaders`` are left out too.
///
/// ```swift
/// let recording = try SecretScrubber(store: .stripe).recording(
///     of: exchanges, scenario: "one-time-paid",
///     input: .init(kind: .stripePaymentIntent, token: "pi_…"), expect: .verified("active"))
/// try recording.write(to: folder.appendingPathComponent("stripe/one-time-paid.json"))
/// print(recording.report)   // which placeholder replaced what kind of value where; never a value
/// ```
public struct SecretScrubber: Sendable {
    /// The store whose API was recorded: decides which harness placeholder a credential maps to.
    public var store: Store
    /// Request headers copied into the cassette's request patterns (compared exactly on replay), names
    /// case-insensitive. Default: `Stripe-Version`, `Prefer`.
    public var recordedRequestHeaders: [String]
    /// Response headers copied into the cassette (values scrubbed). Default: `Content-Type`, `Retry-After`,
    /// `Stripe-Should-Retry`, `Location`, `Link`.
    public var recordedResponseHeaders: [String]

    /// Creates a scrubber for one store's API.
    public init(
        store: Store,
        recordedRequestHeaders: [String] = ["Stripe-Version", "Prefer"],
        recordedResponseHeaders: [String] = ["Content-Type", "Retry-After", "Stripe-Should-Retry", "Location", "Link"]
    ) {
        self.store = store
        self.recordedRequestHeaders = recordedRequestHeaders
        self.recordedResponseHeaders = recordedResponseHeaders
    }

    /// Builds the scrubbed cassette of a recording.
    /// - Parameters:
    ///   - exchanges: the exchanges, in the order they happened.
    ///   - scenario: the cassette's scenario id.
    ///   - description: the cassette's description.
    ///   - input: the proof the adapter was given (its token and context are scrubbed too: a Google purchase token
    ///     or App Store signed transaction becomes the same stand-in as in the exchanges).
    ///   - config: adapter settings (scrubbed); the store's credential settings are added as placeholders when
    ///     absent (`secretKey: {{stripe.secretKey}}`, …).
    ///   - expect: the expected outcome.
    /// - Returns: the cassette and the report of every replacement.
    public func recording(
        of exchanges: [RecordedExchange],
        scenario: String,
        description: String = "",
        input: Cassette.Input,
        config: [String: JSONValue] = [:],
        expect: Cassette.Expectation
    ) -> ScrubbedRecording {
        var session = ScrubSession(scrubber: self)
        session.learnInput(input)
        for (index, exchange) in exchanges.enumerated() { session.learn(exchange, index: index) }
        let scrubbedInput = session.scrubbed(input)
        var interactions: [Cassette.Interaction] = []
        for (index, exchange) in exchanges.enumerated() {
            interactions.append(session.interaction(from: exchange, index: index))
        }
        let cassette = Cassette(
            store: store,
            scenario: scenario,
            description: description,
            input: scrubbedInput,
            config: session.scrubbed(config: config),
            interactions: interactions,
            expect: expect
        )
        return ScrubbedRecording(
            cassette: cassette,
            replacements: session.replacements,
            secrets: session.secretValues
        )
    }

    /// A shape of text that must never be written to a cassette; `opencat fixtures lint` refuses a cassette with any.
    public struct LiveCredentialPattern: Sendable, Hashable {
        /// The regular expression (`NSRegularExpression` syntax).
        public var pattern: String
        /// What it looks like (`a live Stripe secret key`).
        public var what: String

        /// Creates a pattern.
        public init(_ pattern: String, _ what: String) {
            self.pattern = pattern
            self.what = what
        }
    }

    /// Text that looks like a live credential or a signed token; cassettes carry placeholders instead. Shared by
    /// `opencat fixtures lint` and the check ``ScrubbedRecording/encoded()`` makes before anything is written.
    public static let liveCredentialPatterns: [LiveCredentialPattern] = [
        .init("sk_live_[A-Za-z0-9]+", "a live Stripe secret key"),
        .init("rk_live_[A-Za-z0-9]+", "a live Stripe restricted key"),
        .init("whsec_[A-Za-z0-9]+", "a Stripe webhook secret"),
        .init("-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
        .init("AIza[0-9A-Za-z_-]{20,}", "a Google API key"),
        .init("eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}", "a JWS/JWT"),
        .init("\\b[0-9A-F]{32}\\b", "a Steam publisher key"),
        .init("ya29\\.[0-9A-Za-z_-]+", "a Google access token"),
        .init("A21AA[0-9A-Za-z_-]{20,}", "a PayPal access token"),
        // LLM provider keys; made-up keys in committed fixtures say so right after the prefix (`sk-proj-FAKE…`).
        .init("sk-ant-(?!api03-FAKE)[A-Za-z0-9_-]{8,}", "an Anthropic API key"),
        .init("sk-proj-(?!FAKE)[A-Za-z0-9_-]{8,}", "an OpenAI project key"),
        .init("\\bsk-(?!FAKE|proj-|ant-)[A-Za-z0-9]{20,}", "an OpenAI API key"),
        .init("\\b[0-9A-Fa-f]{100,}\\b", "a Steam session ticket"),
        .init(
            "[?&](?:ticket|session_token|sessionToken|access_token|auth_token|api_token)=(?!\\{\\{|recorded-)[^&\"\\s]{6,}",
            "a token in a URL's query"
        ),
    ]

    /// The live-looking credentials a text contains: what each pattern it matches looks like.
    public static func liveCredentials(in text: String) -> [String] {
        liveCredentialPatterns.filter { text.range(of: $0.pattern, options: .regularExpression) != nil }.map(\.what)
    }
}
