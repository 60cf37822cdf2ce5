import Foundation
import HTTPTypes
import OpenCatCore

/// One scrubbing run: first every exchange is read to learn the secrets it carries (``learn(_:index:)``), then the
/// cassette is written with each learned value replaced wherever it occurs (``ScrubSession+Rewriting``).
struct ScrubSession {
    /// A value found, what replaces it, and where it was replaced.
    struct Entry {
        var value: String
        var kind: SecretKind
        var replacement: String
        var locations: [String]
    }

    let scrubber: SecretScrubber
    var store: Store { scrubber.store }
    private(set) var entries: [Entry] = []
    private var positions: [String: Int] = [:]
    private var counters: [String: Int] = [:]
    /// App Store signed data: the JWS → its name under `config.signedPayloads`, and each name's payload.
    var signedNames: [String: String] = [:]
    var signedPayloads: [String: JSONValue] = [:]
    /// Values shorter than this are never learned (they would replace unrelated text).
    static let minimumLength = 4

    /// The shapes of secrets ``scan(_:)`` finds anywhere, compiled once per run.
    let shapes: [(Regex<Substring>, SecretKind)]

    init(scrubber: SecretScrubber) {
        self.scrubber = scrubber
        self.shapes = Self.shapes(for: scrubber.store)
    }

    /// The report, in the order the values were found.
    var replacements: [SecretReplacement] {
        entries.filter { !$0.locations.isEmpty }.map {
            SecretReplacement(kind: $0.kind, replacement: $0.replacement, locations: $0.locations)
        }
    }

    /// Every learned value, for the final check.
    var secretValues: [(value: Secret<String>, kind: SecretKind)] { entries.map { (Secret($0.value), $0.kind) } }

    // MARK: Learning

    /// Learns a value (ignoring short ones); a value already known keeps its first kind and replacement.
    /// - Parameters:
    ///   - location: where it was found, when it is left out of the cassette there (a header): replacements found
    ///     while rewriting add their own locations.
    ///   - replacement: what replaces it (default: the store's placeholder for the kind, else a stand-in).
    mutating func learn(_ value: String, _ kind: SecretKind, at location: String? = nil, replacement: String? = nil) {
        guard value.count >= Self.minimumLength, !value.hasPrefix("{{") else { return }
        if let position = positions[value] {
            if let location { note(location, at: position) }
            return
        }
        let replacement = replacement ?? placeholder(for: kind) ?? standIn(for: value, kind: kind)
        positions[value] = entries.count
        entries.append(
            Entry(value: value, kind: kind, replacement: replacement, locations: location.map { [$0] } ?? [])
        )
    }

    mutating func note(_ location: String, at position: Int) {
        if !entries[position].locations.contains(location) { entries[position].locations.append(location) }
    }

    /// The kind of a learned value.
    func learnedKind(of value: String) -> SecretKind? { positions[value].map { entries[$0].kind } }

    /// The harness placeholder a credential of this store maps to, if any.
    func placeholder(for kind: SecretKind) -> String? {
        switch kind {
        case .stripeSecretKey: store == .stripe ? "{{stripe.secretKey}}" : nil
        case .payPalClientId: "{{paypal.clientId}}"
        case .payPalClientSecret: "{{paypal.clientSecret}}"
        case .googleClientEmail: "{{google.clientEmail}}"
        case .appleIssuerId: "{{apple.issuerId}}"
        case .appleKeyId: "{{apple.keyId}}"
        case .steamPublisherKey: "{{steam.publisherKey}}"
        case .openCatAPIKey: store == MockCredentials.openCatStore ? "{{opencat.apiKey}}" : nil
        case .userToken:
            store == MockCredentials.keyServerStore
                ? "{{keyserver.token}}" : store == MockCredentials.llmKeysStore ? "{{llmkeys.token}}" : nil
        case .chippiPayAPIKey: "{{chippipay.apiKey}}"
        case .chippiPaySecretKey: "{{chippipay.secretKey}}"
        default: nil
        }
    }

    /// A made-up value in the role of `value`, numbered per kind, never equal to it.
    mutating func standIn(for value: String, kind: SecretKind) -> String {
        while true {
            let number = (counters[kind.rawValue] ?? 0) + 1
            counters[kind.rawValue] = number
            let candidate: String
            switch kind {
            case .email: candidate = "recorded-\(number)@example.com"
            case .purchaseToken: candidate = "recorded-purchase-token-\(number)"
            case .accessToken: candidate = "recorded-access-token-\(number)"
            case .jwt: candidate = "recorded-jwt-\(number)"
            case .accountId: candidate = Self.accountStandIn(for: value, number: number)
            case .clientSecret: candidate = "recorded-client-secret-\(number)"
            case .cookie: candidate = "recorded-cookie-\(number)"
            case .privateKey: candidate = "recorded-private-key-\(number)"
            case .llmProviderKey: candidate = "recorded-llm-key-\(number)"
            case .steamTicket: candidate = "recorded-steam-ticket-\(number)"
            case .ownAPIValue: candidate = "recorded-value-\(number)"
            default: candidate = "recorded-secret-\(number)"
            }
            if candidate != value, positions[candidate] == nil { return candidate }
        }
    }

    /// An account id of the same shape: a UUID stays a UUID; a lower-case `xxx_` prefix (`cus_`, `acct_`) is kept;
    /// letters become `X`/`x`, digits `0`, then the number is written into the last letters and digits.
    static func accountStandIn(for value: String, number: Int) -> String {
        if UUID(uuidString: value) != nil {
            let digits = String(number)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        }
        var prefix = ""
        if let underscore = value.firstIndex(of: "_"), value.distance(from: value.startIndex, to: underscore) <= 5,
            value[..<underscore].allSatisfy({ $0.isASCII && $0.isLowercase })
        {
            prefix = String(value[...underscore])
        }
        var characters: [Character] = value.dropFirst(prefix.count).map { character in
            guard character.isASCII else { return "x" }
            if character.isNumber { return "0" }
            if character.isUppercase { return "X" }
            if character.isLowercase { return "x" }
            return character
        }
        var slots = characters.indices.filter { characters[$0].isLetter || characters[$0].isNumber }
        for digit in String(number).reversed() {
            guard let slot = slots.popLast() else { break }
            characters[slot] = digit
        }
        return prefix + String(characters)
    }
}

// MARK: - Reading the exchanges

extension ScrubSession {
    /// Learns the proof's secrets: a Google purchase token, an App Store signed transaction.
    mutating func learnInput(_ input: Cassette.Input) {
        if store == .google { learn(input.token, .purchaseToken) }
        if store == .apple, CompactJWS(input.token) != nil { learnSigned(input.token, key: "signedTransactionInfo") }
        scan(input.token)
        for (name, value) in input.context { learnNamed(name, value) }
    }

    /// Learns every secret of one exchange.
    mutating func learn(_ exchange: RecordedExchange, index: Int) {
        let base = "interactions[\(index)]"
        let request = exchange.request
        for field in request.headers {
            learnHeader(field.name.canonicalName, field.value, location: "\(base).request.headers.\(field.name)")
        }
        learnPath(request.path)
        for item in request.queryItems { learnNamed(item.name, item.value) }
        learnBody(request.body, contentType: request.header("Content-Type"))
        for field in exchange.response.headers {
            let name = field.name.canonicalName
            if name == "set-cookie" {
                let value = field.value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? field.value
                let cookie = value.split(separator: "=", maxSplits: 1).last.map(String.init) ?? value
                learn(cookie, .cookie, at: "\(base).response.headers.\(field.name) (not recorded)")
            } else {
                scan(field.value)
            }
        }
        learnBody(exchange.response.body, contentType: exchange.response.headers[.contentType])
    }

    /// A request header: credentials are learned with the header as their location (credential headers are never
    /// recorded); other values are scanned.
    mutating func learnHeader(_ name: String, _ value: String, location: String) {
        let left = " (not recorded; MockStores checks the store's credentials)"
        switch name {
        case "authorization", "proxy-authorization": learnAuthorization(value, location: location + left)
        case "x-webapi-key": learn(value, .steamPublisherKey, at: location + left)
        case "x-api-key":
            learn(value, store == MockCredentials.chippiPayStore ? .chippiPayAPIKey : .apiKey, at: location + left)
        case "stripe-account": learn(value, .accountId, at: location + " (not recorded)")
        case "cookie": learn(value, .cookie, at: location + " (not recorded)")
        case "paypal-auth-assertion":
            learnJWTClaims(value)
            learn(value, .jwt, at: location + " (not recorded)")
        default: scan(value)
        }
    }

    /// `Authorization`: a bearer by the store and its shape, Basic credentials by their halves.
    mutating func learnAuthorization(_ value: String, location: String) {
        let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return learn(value, .apiKey, at: location) }
        let (scheme, credentials) = (parts[0].lowercased(), parts[1].trimmingCharacters(in: .whitespaces))
        switch scheme {
        case "bearer":
            let isJWT = CompactJWS(credentials) != nil
            if isJWT { learnJWTClaims(credentials) }
            learn(credentials, bearerKind(credentials, isJWT: isJWT), at: location)
        case "basic":
            guard let data = Data(base64Encoded: credentials), let text = String(data: data, encoding: .utf8),
                let colon = text.firstIndex(of: ":")
            else { return learn(credentials, .apiKey, at: location) }
            let (user, password) = (String(text[..<colon]), String(text[text.index(after: colon)...]))
            if store == .paypal {
                learn(user, .payPalClientId, at: location)
                learn(password, .payPalClientSecret, at: location)
            } else if user.hasPrefix("sk_") || user.hasPrefix("rk_") {
                learn(
                    user,
                    store == MockCredentials.chippiPayStore ? .chippiPaySecretKey : .stripeSecretKey,
                    at: location
                )
            } else {
                learn(user, .accountId, at: location)
                learn(password, .apiKey, at: location)
            }
        default: learn(credentials, .apiKey, at: location)
        }
    }

    func bearerKind(_ token: String, isJWT: Bool) -> SecretKind {
        switch store {
        case MockCredentials.chippiPayStore: return .chippiPaySecretKey
        case MockCredentials.openCatStore: return .openCatAPIKey
        case MockCredentials.keyServerStore, MockCredentials.llmKeysStore: return .userToken
        default: break
        }
        if token.hasPrefix("sk_") || token.hasPrefix("rk_") { return .stripeSecretKey }
        return isJWT ? .jwt : .accessToken
    }

    /// A JWT's identifying claims: the App Store key id and issuer, a Google service account's e-mail.
    mutating func learnJWTClaims(_ token: String) {
        guard let jws = CompactJWS(token) else { return }
        let header = (try? JSONValue(parsing: jws.header)) ?? .null
        let claims = (try? JSONValue(parsing: jws.payload)) ?? .null
        if store == .apple {
            if let kid = header["kid"]?.stringValue { learn(kid, .appleKeyId) }
            if let iss = claims["iss"]?.stringValue { learn(iss, .appleIssuerId) }
        } else if store == .google, let iss = claims["iss"]?.stringValue, iss.contains("@") {
            learn(iss, .googleClientEmail)
        }
        learnJSON(claims, key: nil)
    }

    /// A path: a Google Play `tokens/{token}` segment is a purchase token; every segment is scanned.
    mutating func learnPath(_ path: String) {
        let segments = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        for (index, segment) in segments.enumerated() {
            if index > 0, segments[index - 1] == "tokens" {
                let token = segment.split(separator: ":", maxSplits: 1).first.map(String.init) ?? segment
                learn(token, .purchaseToken)
            }
            scan(segment)
        }
    }

    /// A body: JSON walked by member names, a form by field names, anything else scanned.
    mutating func learnBody(_ body: Data, contentType: String?) {
        guard !body.isEmpty else { return }
        if let json = try? JSONValue(parsing: body) {
            learnJSON(json, key: nil, inBody: true)
        } else if contentType?.lowercased().contains("x-www-form-urlencoded") == true {
            for field in FormURLEncoding.decode(String(decoding: body, as: UTF8.self)) {
                learnNamed(field.name, field.value)
            }
        } else {
            scan(String(decoding: body, as: UTF8.self))
        }
    }

    /// JSON: strings by the name of their member (App Store signed data under `signed…` members); in a body of the
    /// project's own APIs, every string but the harmless members' (deny-by-default).
    mutating func learnJSON(_ value: JSONValue, key: String?, inBody: Bool = false) {
        switch value {
        case .object(let members):
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                learnJSON(member, key: name, inBody: inBody)
            }
        case .array(let elements):
            for element in elements { learnJSON(element, key: key, inBody: inBody) }
        case .string(let text):
            if store == .apple, let key, key.hasPrefix("signed"), CompactJWS(text) != nil {
                learnSigned(text, key: key)
            } else if let key {
                learnNamed(key, text)
            } else {
                scan(text)
            }
            // The project's own APIs are recorded deny-by-default: every value but the known harmless ones.
            if inBody, Self.ownAPIStores.contains(store), !Self.harmlessOwnAPIMembers.contains(key ?? ""),
                !Self.isMasked(text)
            {
                learn(text, .ownAPIValue)
            }
        default: break
        }
    }

    /// A JWS the App Store signed: offered as `{{apple.signed.NAME}}`, its payload kept (scrubbed) in `config`.
    mutating func learnSigned(_ jws: String, key: String) {
        guard signedNames[jws] == nil, let parts = CompactJWS(jws), let payload = try? JSONValue(parsing: parts.payload)
        else { return }
        var base = String(key.dropFirst("signed".count))
        // signedTransactionInfo → transaction, signedTransactions → transaction(2, 3, …), signedRenewalInfo → renewalInfo.
        if base == "TransactionInfo" || base == "Transactions" { base = "Transaction" }
        base = base.prefix(1).lowercased() + base.dropFirst()
        if base.isEmpty { base = "payload" }
        var name = base
        var number = 1
        while signedPayloads[name] != nil {
            number += 1
            name = "\(base)\(number)"
        }
        signedNames[jws] = name
        signedPayloads[name] = payload
        learn(jws, .appleSignedData, replacement: "{{apple.signed.\(name)}}")
        learnJSON(payload, key: nil)
    }

    /// The project's own APIs, whose bodies are recorded deny-by-default.
    static let ownAPIStores: Set<Store> = [
        MockCredentials.keyServerStore, MockCredentials.llmKeysStore, MockCredentials.chippiPayStore,
    ]

    /// Members of the own APIs' bodies whose values are enumerations or times, never a secret: kept as they are.
    static let harmlessOwnAPIMembers: Set<String> = [
        "status", "state", "error", "code", "reason", "message", "currency", "kind", "plan", "planType", "plan_type",
        "provider", "environment", "store", "type", "object", "tier", "network", "method", "version", "masked",
        "createdAt", "updatedAt", "expiresAt", "created_at", "updated_at", "expires_at",
    ]

    /// A key shown masked (`sk-...xyz123`: a public prefix, three dots, at most six characters): not a secret.
    static func isMasked(_ text: String) -> Bool {
        guard let dots = text.range(of: "...") else { return false }
        return text.distance(from: text.startIndex, to: dots.lowerBound) <= 4
            && text.distance(from: dots.upperBound, to: text.endIndex) <= 6
    }

    /// A named value (a query or form field, a JSON member): secrets by their name, then by their shape.
    mutating func learnNamed(_ name: String, _ value: String) {
        let normalized = name.lowercased().filter { $0 != "_" && $0 != "-" }
        switch normalized {
        case "ticket", "authticket", "steamauthticket", "sessionticket": learn(value, .steamTicket)
        case "sessiontoken", "authtoken", "bearertoken", "sessionid", "sessionkey", "csrftoken", "apitoken":
            learn(value, .accessToken)
        // PayPal's return URL names the order id `token` (17 upper-case letters and digits): not a secret.
        case "token"
        where !(store == .paypal && value.count == 17 && value.allSatisfy { $0.isUppercase || $0.isNumber }):
            learn(value, .accessToken)
        case "openai", "anthropic", "openaikey", "anthropickey", "googleaikey",
            "llmkey":
            if !Self.isMasked(value) { learn(value, .llmProviderKey) }
        case "accesstoken", "refreshtoken", "idtoken": learn(value, .accessToken)
        case "clientsecret": learn(value, .clientSecret)
        case "secret", "apikey", "password", "privatekey", "webhooksecret", "secretkey", "apisecret":
            learn(value, .apiKey)
        case "key": learn(value, store == .steam ? .steamPublisherKey : .apiKey)
        case "assertion", "clientassertion", "subjecttoken":
            learnJWTClaims(value)
            learn(value, .jwt)
        case "purchasetoken", "linkedpurchasetoken": learn(value, .purchaseToken)
        case "payerid", "merchantid", "accountid", "steamid", "obfuscatedexternalaccountid",
            "obfuscatedexternalprofileid", "obfuscatedaccountid", "obfuscatedprofileid", "customerid",
            "appaccounttoken":
            learn(value, .accountId)
        case "customer" where value.hasPrefix("cus_"): learn(value, .accountId)
        case _ where normalized.hasSuffix("email") || normalized.hasSuffix("emailaddress"):
            if value.contains("@") { learn(value, .email) }
        default: break
        }
        scan(value)
    }

    /// Secrets recognised by their shape anywhere in a text, and by their name in the query of any URL in it (a
    /// `Location` or `Link` header, a JSON `href`, a URL-valued string).
    mutating func scan(_ text: String) {
        guard text.count >= Self.minimumLength else { return }
        for match in text.matches(of: /https?:\/\/[^\s<>\x22\x27]+/) {
            let url = String(text[match.range])
            for item in URLComponents(string: url)?.queryItems ?? [] {
                guard let value = item.value, value != url else { continue }
                learnNamed(item.name, value)
            }
        }
        for (pattern, kind) in shapes {
            for match in text.matches(of: pattern) {
                let value = String(text[match.range])
                if kind == .jwt, learnedKind(of: value) == nil { learnJWTClaims(value) }
                learn(value, kind)
            }
        }
    }

    /// The shapes ``scan(_:)`` looks for, most specific first.
    static func shapes(for store: Store) -> [(Regex<Substring>, SecretKind)] {
        var shapes: [(Regex<Substring>, SecretKind)] = [
            (/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/, .privateKey),
            (/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/, .jwt),
            (/\b(?:pi|seti|src|cs_live|cs_test)_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/, .clientSecret),
        ]
        if store == MockCredentials.chippiPayStore {
            shapes.append((/\bsk_[a-z]+_[A-Za-z0-9_]+/, .chippiPaySecretKey))
            shapes.append((/\bpk_[a-z]+_[A-Za-z0-9_]+/, .chippiPayAPIKey))
        }
        shapes += [
            (/\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]+/, .stripeSecretKey),
            (/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/, .llmProviderKey),
            (/\bwhsec_[A-Za-z0-9]+/, .stripeWebhookSecret),
            (/\bocat_[A-Za-z0-9_]+/, .openCatAPIKey),
            (/AIza[0-9A-Za-z_-]{20,}/, .googleAPIKey),
            (/ya29\.[0-9A-Za-z_.-]+/, .accessToken),
            (/A21AA[0-9A-Za-z_-]{20,}/, .accessToken),
            (/\b[0-9A-F]{32}\b/, store == .steam ? .steamPublisherKey : .apiKey),
            (/\b(?:acct|cus)_[A-Za-z0-9]{6,}/, .accountId),
            (/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/, .email),
        ]
        return shapes
    }
}
