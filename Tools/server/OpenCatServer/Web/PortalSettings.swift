public import Foundation
public import OpenCatCore
import Synchronization

/// The web portal's and the operator console's settings (`portal` in the configuration file).
public struct PortalSettings: Sendable {
    /// A key pack sold on the web, at a fixed price.
    public struct Product: Sendable, Hashable, Codable {
        /// The product id (a key pack of the configuration's `keyPacks`).
        public var productId: String
        /// The name the pages and the hosted checkout show.
        public var name: String
        /// The price of one pack, an exact decimal string (`"4.99"`).
        public var amount: String
        /// The currency (ISO 4217).
        public var currency: String

        /// A product.
        public init(productId: String, name: String, amount: String, currency: String) {
            self.productId = productId
            self.name = name
            self.amount = amount
            self.currency = currency
        }

        /// The exact price, or `nil` when `amount` is not a decimal number.
        public var price: Money? { Money(decimalString: amount, currency: currency.uppercased()) }
    }

    /// An operator of the console: a name and the SHA-256 of their token (never the token).
    public struct Operator: Sendable, Hashable, Codable {
        /// The name the audit log records.
        public var name: String
        /// Hex SHA-256 of the operator's token.
        public var tokenSHA256: String

        /// An operator.
        public init(name: String, tokenSHA256: String) {
            self.name = name
            self.tokenSHA256 = tokenSHA256.lowercased()
        }
    }

    /// The address users reach the server at (`https://keys.example.com`): sign-in links and store return URLs
    /// are made from it. On loopback (`http://127.0.0.1:…`) cookies are not marked `Secure`.
    public var publicURL: URL
    /// The key packs sold on the web.
    public var products: [Product]
    /// The console's operators.
    public var operators: [Operator]
    /// Delivers sign-in links.
    public var mail: any PortalMailSender
    /// How long a sign-in link works (default 15 minutes); it works once.
    public var linkLifetime: TimeInterval = 15 * 60
    /// How long a portal session lasts (default 12 hours).
    public var sessionLifetime: TimeInterval = 12 * 3600
    /// How long a console session lasts (default 8 hours).
    public var consoleSessionLifetime: TimeInterval = 8 * 3600
    /// Origins the browser may be sent to by a form (the stores' hosted checkout pages), for the
    /// Content-Security-Policy's `form-action`.
    public var checkoutOrigins: [String] = [
        "https://checkout.stripe.com", "https://www.paypal.com", "https://www.sandbox.paypal.com",
    ]

    /// Settings.
    public init(publicURL: URL, products: [Product], operators: [Operator], mail: any PortalMailSender) {
        self.publicURL = publicURL
        self.products = products
        self.operators = operators
        self.mail = mail
    }

    /// Whether the server is reached over plain http on loopback (development and tests): cookies then go without
    /// `Secure`. An https URL is never loopback here: its cookies are `Secure`.
    public var isLoopback: Bool {
        guard publicURL.scheme == "http" else { return false }
        let host = publicURL.host ?? ""
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// A product by id.
    public func product(_ id: String) -> Product? { products.first { $0.productId == id } }
}

/// A mail the portal sends: a sign-in link.
public struct PortalMail: Sendable {
    /// The recipient.
    public var to: String
    /// The subject.
    public var subject: String
    /// The sign-in link (a secret until used).
    public var link: Secret<String>

    /// A mail.
    public init(to: String, subject: String, link: Secret<String>) {
        self.to = to
        self.subject = subject
        self.link = link
    }
}

/// Delivers the portal's mails. Plug in your provider; the default (``FileMailSender``) writes them to a file
/// for development. A sender never logs a link.
public protocol PortalMailSender: Sendable {
    /// Sends a mail.
    func send(_ mail: PortalMail) async throws
}

/// Appends each mail as one JSON line (`{"to", "subject", "link"}`) to an owner-only file: for development and
/// tests, never for production (the file holds live sign-in links).
public final class FileMailSender: PortalMailSender {
    /// The file.
    public let file: URL
    private let lock = Mutex(())

    /// A sender writing to `file` (created with mode 0600).
    public init(file: URL) { self.file = file }

    /// Appends the mail.
    public func send(_ mail: PortalMail) async throws {
        struct Line: Encodable {
            var to: String
            var subject: String
            var link: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Line(to: mail.to, subject: mail.subject, link: mail.link.revealed))
        data.append(0x0A)
        try lock.withLock { _ in
            if !FileManager.default.fileExists(atPath: file.path) {
                guard
                    FileManager.default.createFile(
                        atPath: file.path,
                        contents: nil,
                        attributes: [.posixPermissions: 0o600]
                    )
                else { throw CocoaError(.fileWriteNoPermission) }
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        }
    }
}
