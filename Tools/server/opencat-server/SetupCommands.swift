import ArgumentParser
import Crypto
import Foundation
import KeyServerAPI
import OpenCatCore
import OpenCatLicense
import OpenCatServer

/// `opencat-server init DIR`: a starter configuration with one user, a signing key, a key pack and an app.
struct ServerInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a starter server configuration (server.json, users.json, a signing key) into a folder.",
        discussion: """
            Prints the demo user's bearer token, the OpenCat API key and the console operator's token once: the files \
            keep only their SHA-256. No store is configured; add them to server.json (see Tools/server/README.md). \
            With --demo the configuration is wired to `opencat mock serve --checkout` on 127.0.0.1:9090 (Stripe and \
            PayPal: the recorded payment, hosted checkout pages, webhooks and refunds), with two users, so that \
            buying on the API and on the portal, spending, sharing, refunding from the console and syncing work at \
            once; the portal's links follow --host and --port. It prints the commands to run and the three URLs.
            """
    )

    @Argument(help: "The folder to create (must not exist).") var folder: String
    @Flag(name: .customLong("demo"), help: "Wire the configuration to `opencat mock serve --port 9090` (Stripe).")
    var demo = false
    @Option(name: .customLong("mock-port"), help: "The mock stores' port for --demo.")
    var mockPort = 9090
    @Option(name: .customLong("host"), help: "The address the server will listen on (the portal's links use it).")
    var host = "127.0.0.1"
    @Option(name: .customLong("port"), help: "The port the server will listen on (the portal's links use it).")
    var port = 8080

    /// The server's address as a browser reaches it (`0.0.0.0` and `::` listen everywhere: links use loopback).
    var publicURL: String {
        let name = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
        return "http://\(name):\(port)"
    }

    func run() throws {
        let root = URL(fileURLWithPath: folder)
        guard !FileManager.default.fileExists(atPath: root.path) else {
            throw ValidationError("\(folder) exists; init writes a new folder")
        }
        try FileManager.default.createDirectory(
            at: root,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let keys = root.appendingPathComponent("signing-keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: keys.path)
        let kid = "k" + ISO8601DateFormatter().string(from: Date()).prefix(10).replacingOccurrences(of: "-", with: "")
        let issuer: LicenseIssuer
        do throws(ServerConfigurationError) { issuer = try LicenseKeyring.generate(kid: kid, in: keys) } catch {
            throw ValidationError(error.message)
        }
        let token = "ocs_" + Self.random()
        let friendToken = "ocs_" + Self.random()
        let apiKey = "ocat_" + Self.random()
        // The demo's buyer is the one the recorded Stripe payment names (metadata.app_user_id).
        let buyer = demo ? "player-42" : "demo-user"
        var users = [ServerUser(userId: buyer, email: "demo@example.com", token: token)]
        if demo { users.append(ServerUser(userId: "friend", email: "friend@example.com", token: friendToken)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(users), to: root.appendingPathComponent("users.json"))
        var stores: [String: Any] = [:]
        var keyPacks: [String: Any] = [
            "com.example.keys.10": ["keys": 10, "bonusKeys": 1, "communityKeys": 1, "plan": "L1"]
        ]
        if demo {
            // The product of the recorded payment Fixtures/stripe/one-time-paid.json.
            keyPacks["gems_500"] = ["keys": 10, "bonusKeys": 1, "communityKeys": 1, "plan": "L1", "licenses": 1]
            stores = try writeDemoStores(root)
        }
        let operatorToken = "opc_" + Self.random()
        var config = Self.configuration(
            kid: kid,
            keyPacks: keyPacks,
            stores: stores,
            apiKey: apiKey,
            operatorToken: operatorToken,
            publicURL: publicURL
        )
        // The mock's payments are test-mode (Stripe) and sandbox (PayPal).
        if demo { config["acceptedEnvironments"] = ["*": ["production", "sandbox"]] }
        let data = try JSONSerialization.data(
            withJSONObject: config,
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        try write(data, to: root.appendingPathComponent("server.json"))
        print("wrote \(root.path)/server.json, users.json and signing-keys/\(kid).ed25519")
        print("license public key (\(kid)): \(issuer.publicKey.rawRepresentation.base64EncodedString())")
        print("\(buyer) bearer token (shown once): \(token)")
        if demo { print("friend bearer token (shown once): \(friendToken)") }
        print("OpenCat API key (shown once): \(apiKey)")
        print("console operator admin, token (shown once): \(operatorToken)")
        if demo { printDemo(root: root, token: token) }
    }

    /// The demo's stores, both on the mock (`opencat mock serve --checkout`), and their secrets in owner-only files:
    /// Stripe (test key, webhook signing secret, the portal pack's price) and PayPal (sandbox client, the mock's
    /// payee, the webhook id the mock's verification answers for).
    func writeDemoStores(_ root: URL) throws -> [String: Any] {
        let stripeKey = "sk_test_demo_" + Self.random()
        let webhookSecret = "whsec_" + Self.random()
        let payPalClient = "opencat-demo-" + Self.random().prefix(12)
        let payPalSecret = Self.random()
        try write(Data(stripeKey.utf8), to: root.appendingPathComponent("stripe-secret-key"))
        try write(Data(webhookSecret.utf8), to: root.appendingPathComponent("stripe-webhook-secret"))
        try write(Data(payPalSecret.utf8), to: root.appendingPathComponent("paypal-client-secret"))
        let mockSecrets = [
            "stripe.secretKey": stripeKey, "paypal.clientId": String(payPalClient), "paypal.clientSecret": payPalSecret,
        ]
        try write(
            try JSONSerialization.data(withJSONObject: mockSecrets, options: [.sortedKeys]),
            to: root.appendingPathComponent("mock-secrets.json")
        )
        let mock = "http://127.0.0.1:\(mockPort)"
        let prices = ["com.example.keys.10": ["amount": "4.99", "currency": "USD"]]
        return [
            "stripe": [
                "secretKeyFile": "stripe-secret-key", "webhookSecretFile": "stripe-webhook-secret", "baseURL": mock,
                "prices": prices,
            ],
            "paypal": [
                "baseURL": mock, "clientId": String(payPalClient), "clientSecretFile": "paypal-client-secret",
                "environment": "sandbox", "payeeMerchantId": Self.mockPayee, "prices": prices,
                "webhookId": "WH-OPENCAT-DEMO",
            ],
        ]
    }

    /// The payee the mock checkout puts on PayPal orders that name none (`opencat mock serve --paypal-merchant-id`).
    static let mockPayee = "OPENCATMOCK01"

    /// The server configuration `init` writes: the portal and console on `serve`'s default address (the
    /// operator's token is shown once; sign-in links go to portal-mail.jsonl in development), the users file, the
    /// signing keys, the packs, an example app, the OpenCat API key and the stores.
    static func configuration(
        kid: String,
        keyPacks: [String: Any],
        stores: [String: Any],
        apiKey: String,
        operatorToken: String,
        publicURL: String = "http://127.0.0.1:8080"
    ) -> [String: Any] {
        // The web portal and console on the address `serve` listens on by default; the operator's token is shown
        // once. Sign-in links go to portal-mail.jsonl (development): plug a mail sender in for production.
        let portal: [String: Any] = [
            "publicURL": publicURL,
            "products": [["productId": "com.example.keys.10", "name": "10 keys", "amount": "4.99", "currency": "USD"]],
            "operators": [["name": "admin", "tokenSHA256": BearerTokens.hash(operatorToken)]],
            "mail": ["file": "portal-mail.jsonl"],
        ]
        return [
            "portal": portal,
            "usersFile": "users.json",
            "signingKeys": ["folder": "signing-keys", "activeKid": kid],
            "keyPacks": keyPacks,
            "apps": ["example-app": [["id": "pro-voices", "name": "Pro voices", "cost": 3]]],
            "syncRateLimit": ["requests": 10, "seconds": 60],
            "openCat": [
                "apiKeySHA256": [BearerTokens.hash(apiKey)],
                "entitlements": ["com.example.pro.monthly": ["pro"]],
            ],
            "stores": stores,
        ]
    }

    /// How to try the demo: the mock stores (with the checkout and refunds), the server, the three URLs, where the
    /// sign-in mail goes, a purchase on the API.
    func printDemo(root: URL, token: String) {
        let base = publicURL
        let listen = host == "127.0.0.1" && port == 8080 ? "" : " --host \(host) --port \(port)"
        print(
            """

            Try it (Tools/server/README.md walks through it):
              OPENCAT_DEMO_WEBHOOK_SECRET=$(cat \(root.path)/stripe-webhook-secret) \\
                swift run opencat mock serve --port \(mockPort) --store stripe --store paypal --scenario one-time-paid \\
                  --repeat --secrets \(root.path)/mock-secrets.json --checkout \\
                  --stripe-webhook \(base)/v1/notifications/stripe --stripe-webhook-secret-env OPENCAT_DEMO_WEBHOOK_SECRET \\
                  --paypal-webhook \(base)/v1/notifications/paypal &
              swift run opencat-server\(listen) --config \(root.path)/server.json \\
                  --database sqlite:\(root.path)/ledger.sqlite &

            The API:     \(base)/  (documents at /openapi.yaml and /v1/openapi.yaml)
            The portal:  \(base)/portal  (sign in as demo@example.com: the link is written to \(root.path)/portal-mail.jsonl)
            The console: \(base)/console  (operator admin, with the token above)

            Buy a pack on the API with the recorded payment:
              curl -s -H 'Authorization: Bearer \(token)' -H 'Content-Type: application/json' \\
                  -d '{"paymentIntentId":"pi_3OpenCatPaid001","productId":"gems_500"}' \\
                  \(base)/api/v1/keys/purchase/stripe
            """
        )
    }

    /// Writes a new file that only its owner can read, from its first byte (no window with the umask's mode).
    func write(_ data: Data, to url: URL) throws {
        try ServerInit.writeOwnerOnly(data, to: url)
    }

    static func writeOwnerOnly(_ data: Data, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ValidationError("\(url.path) cannot be created (errno \(errno))") }
        defer { close(fd) }
        let written = writeBytes(data, to: fd)
        guard written == data.count, fsync(fd) == 0 else {
            throw ValidationError("\(url.path) cannot be written (errno \(errno))")
        }
    }

    static func random() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// `opencat-server keygen --kid K --folder DIR`: a new license signing key (rotation).
struct ServerKeygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new Ed25519 license signing key <kid>.ed25519 (owner-only) and print its public key.",
        discussion: """
            Rotate by generating a key with a new kid and making it signingKeys.activeKid: keep the old files, so \
            licenses they signed keep verifying (apps embed every public key by kid).
            """
    )

    @Option(name: .customLong("kid"), help: "The key id (letters, digits, . _ -).") var kid: String
    @Option(name: .customLong("folder"), help: "The signing key folder.") var folder: String

    func run() throws {
        do throws(ServerConfigurationError) {
            let issuer = try LicenseKeyring.generate(kid: kid, in: URL(fileURLWithPath: folder))
            print("\(kid): \(issuer.publicKey.rawRepresentation.base64EncodedString())")
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// `opencat-server hash-token`: the SHA-256 a users file or `openCat.apiKeySHA256` keeps for a token.
struct ServerHashToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-token",
        abstract: "Read a token on standard input and print its SHA-256 (hex), for users.json and server.json."
    )

    func run() throws {
        let token = (readLine(strippingNewline: true) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw ValidationError("no token on standard input") }
        print(BearerTokens.hash(token))
    }
}

/// `opencat-server add-user --users FILE --user-id U [--email E] [--steam-id S]`: a new user with a fresh token.
struct ServerAddUser: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Add a user to a users file with a new bearer token, printed once (the file keeps its SHA-256).",
        discussion: """
            The file is rewritten atomically, owner-only; a user id or email already in it is refused. A running \
            server reads the file at start: restart it (or roll the instances) to let the user in.
            """
    )

    @Option(name: .customLong("users"), help: "The users file (created when missing), e.g. DIR/users.json.")
    var users: String
    @Option(name: .customLong("user-id"), help: "The user's id.") var userId: String
    @Option(name: .customLong("email"), help: "The user's email (key sync and shares find users by it).")
    var email: String?
    @Option(name: .customLong("steam-id"), help: "The user's SteamID64 (Steam purchases must be theirs).")
    var steamId: String?

    func validate() throws {
        guard !userId.isEmpty, userId.count <= 128 else { throw ValidationError("--user-id takes 1 to 128 characters") }
        if let email, !EmailAddress.isValid(email) {
            throw ValidationError("--email is not an email address (name@example.com, at most 254 characters)")
        }
        if let steamId, UInt64(steamId) == nil { throw ValidationError("--steam-id is a SteamID64 (digits)") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: users)
        var list: [ServerUser] = []
        if FileManager.default.fileExists(atPath: url.path) {
            guard let data = FileManager.default.contents(atPath: url.path),
                let decoded = try? JSONCoding.decoder.decode([ServerUser].self, from: data)
            else { throw ValidationError("\(users) is not a JSON array of users; nothing was changed") }
            list = decoded
        }
        if list.contains(where: { $0.userId == userId }) {
            throw ValidationError("\(userId) is already in \(users); nothing was changed")
        }
        if let email, list.contains(where: { $0.email?.lowercased() == email.lowercased() }) {
            throw ValidationError("\(email) is already in \(users); nothing was changed")
        }
        let token = "ocs_" + ServerInit.random()
        list.append(ServerUser(userId: userId, email: email, steamId: steamId, token: token))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID())")
        try ServerInit.writeOwnerOnly(try encoder.encode(list), to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ValidationError("\(users) cannot be replaced (errno \(errno)); nothing was changed")
        }
        print("added \(userId) to \(users)")
        print("bearer token (shown once): \(token)")
    }
}

/// `write(2)` of the whole buffer (outside the types whose `write` methods would shadow it).
private func writeBytes(_ data: Data, to fd: Int32) -> Int {
    data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
