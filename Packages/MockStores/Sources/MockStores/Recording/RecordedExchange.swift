/// One request a client sent through a recorder and the answer the real API gave, exactly as they crossed the
/// proxy: secrets included. Turn exchanges into a cassette with ``SecretScrubber``; never write them out as they are.
public struct RecordedExchange: Sendable, Hashable {
    /// The request as the recorder received it (path and query as sent on the wire, every header, the body).
    public var request: MockRequest
    /// The upstream's answer (status, headers, the decoded body).
    public var response: MockResponse

    /// Creates an exchange.
    public init(request: MockRequest, response: MockResponse) {
        self.request = request
        self.response = response
    }
}

/// The kind of a value ``SecretScrubber`` replaced: what the report names (never the value itself).
public struct SecretKind: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A stable identifier (`stripeSecretKey`, `email`, …).
    public let rawValue: String

    /// Creates a kind.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Orders kinds by identifier, for a stable report.
    public static func < (lhs: SecretKind, rhs: SecretKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A Stripe secret or restricted key (`sk_…`, `rk_…`).
    public static let stripeSecretKey = SecretKind(rawValue: "stripeSecretKey")
    /// A Stripe webhook signing secret (`whsec_…`).
    public static let stripeWebhookSecret = SecretKind(rawValue: "stripeWebhookSecret")
    /// A client secret handed to a browser (Stripe `pi_…_secret_…`) or an OAuth client secret in a body.
    public static let clientSecret = SecretKind(rawValue: "clientSecret")
    /// PayPal's REST client id (the Basic user name of the token request).
    public static let payPalClientId = SecretKind(rawValue: "payPalClientId")
    /// PayPal's REST client secret (the Basic password of the token request).
    public static let payPalClientSecret = SecretKind(rawValue: "payPalClientSecret")
    /// The Google service account's e-mail (the `iss` of its token assertion).
    public static let googleClientEmail = SecretKind(rawValue: "googleClientEmail")
    /// A Google API key (`AIza…`).
    public static let googleAPIKey = SecretKind(rawValue: "googleAPIKey")
    /// The App Store Connect API issuer id (the `iss` of the App Store Server API token).
    public static let appleIssuerId = SecretKind(rawValue: "appleIssuerId")
    /// The App Store Connect API key id (the `kid` of the App Store Server API token).
    public static let appleKeyId = SecretKind(rawValue: "appleKeyId")
    /// Data the App Store signed (`signedTransactionInfo`, …): re-signed with `MockAppleCA` when the cassette loads.
    public static let appleSignedData = SecretKind(rawValue: "appleSignedData")
    /// The Steam publisher Web API key.
    public static let steamPublisherKey = SecretKind(rawValue: "steamPublisherKey")
    /// An OpenCat server API key (`ocat_…`).
    public static let openCatAPIKey = SecretKind(rawValue: "openCatAPIKey")
    /// A bearer token of the key server or the LLM key API.
    public static let userToken = SecretKind(rawValue: "userToken")
    /// ChippiPay's public API key (`x-api-key`).
    public static let chippiPayAPIKey = SecretKind(rawValue: "chippiPayAPIKey")
    /// ChippiPay's secret key (its bearer).
    public static let chippiPaySecretKey = SecretKind(rawValue: "chippiPaySecretKey")
    /// An OAuth access or refresh token (PayPal `A21AA…`, Google `ya29.…`, any `access_token`).
    public static let accessToken = SecretKind(rawValue: "accessToken")
    /// A JWT or JWS that is not App Store signed data (a bearer, a Google token assertion, a PayPal auth assertion).
    public static let jwt = SecretKind(rawValue: "jwt")
    /// Another API key, password or secret found by its name or shape.
    public static let apiKey = SecretKind(rawValue: "apiKey")
    /// A PEM private key.
    public static let privateKey = SecretKind(rawValue: "privateKey")
    /// A cookie.
    public static let cookie = SecretKind(rawValue: "cookie")
    /// A purchase token (Google Play `purchaseToken`).
    public static let purchaseToken = SecretKind(rawValue: "purchaseToken")
    /// An account id: a customer, payer, merchant, Steam or connected account, an obfuscated account id.
    public static let accountId = SecretKind(rawValue: "accountId")
    /// An e-mail address.
    public static let email = SecretKind(rawValue: "email")
    /// An LLM provider's API key (OpenAI `sk-…`/`sk-proj-…`, Anthropic `sk-ant-…`, Google `AIza…`).
    public static let llmProviderKey = SecretKind(rawValue: "llmProviderKey")
    /// A Steam session ticket (`GetAuthTicketForWebApi`, sent as `ticket`).
    public static let steamTicket = SecretKind(rawValue: "steamTicket")
    /// A value of one of the project's own APIs (key server, LLM keys, ChippiPay): their bodies are recorded
    /// deny-by-default, every value replaced but the few known not to be secret.
    public static let ownAPIValue = SecretKind(rawValue: "ownAPIValue")

    /// What the report calls it (`a Stripe secret key`).
    public var description: String {
        switch self {
        case .stripeSecretKey: "a Stripe secret key"
        case .stripeWebhookSecret: "a Stripe webhook secret"
        case .clientSecret: "a client secret"
        case .payPalClientId: "the PayPal client id"
        case .payPalClientSecret: "the PayPal client secret"
        case .googleClientEmail: "the Google service account e-mail"
        case .googleAPIKey: "a Google API key"
        case .appleIssuerId: "the App Store Connect issuer id"
        case .appleKeyId: "the App Store Connect key id"
        case .appleSignedData: "App Store signed data (JWS)"
        case .steamPublisherKey: "the Steam publisher key"
        case .openCatAPIKey: "an OpenCat API key"
        case .userToken: "a user bearer token"
        case .chippiPayAPIKey: "the ChippiPay API key"
        case .chippiPaySecretKey: "the ChippiPay secret key"
        case .accessToken: "an OAuth access token"
        case .jwt: "a JWT"
        case .apiKey: "an API key or password"
        case .privateKey: "a private key"
        case .cookie: "a cookie"
        case .purchaseToken: "a purchase token"
        case .accountId: "an account id"
        case .email: "an e-mail address"
        case .llmProviderKey: "an LLM provider key"
        case .steamTicket: "a Steam session ticket"
        case .ownAPIValue: "a value of the project's own API"
        default: rawValue
        }
    }
}

/// One value ``SecretScrubber`` replaced, for the report: its kind, what stands in its place, and every place it was
/// found. The value itself is never kept here.
public struct SecretReplacement: Sendable, Hashable, CustomStringConvertible {
    /// What was replaced.
    public var kind: SecretKind
    /// What the cassette has instead: a harness placeholder (`{{stripe.secretKey}}`), or a made-up stand-in for
    /// data the harness does not generate (`recorded-1@example.com`).
    public var replacement: String
    /// Where it was found (`interactions[0].request.headers.Authorization`, `input.token`, …), in order.
    public var locations: [String]

    /// Creates a replacement record.
    public init(kind: SecretKind, replacement: String, locations: [String]) {
        self.kind = kind
        self.replacement = replacement
        self.locations = locations
    }

    /// Whether ``replacement`` is a `{{placeholder}}` the test harness fills with its own credential.
    public var isPlaceholder: Bool { replacement.hasPrefix("{{") && replacement.hasSuffix("}}") }

    /// One report line: `{{stripe.secretKey}} replaced a Stripe secret key at interactions[0]…`.
    public var description: String {
        "\(replacement) replaced \(kind) at \(locations.joined(separator: ", "))"
    }
}
