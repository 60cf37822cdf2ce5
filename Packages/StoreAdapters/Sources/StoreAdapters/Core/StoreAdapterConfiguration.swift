public import Foundation
public import Logging
public import OpenCatCore

/// One store's adapter settings, whatever they were read from — a server's configuration file (`stores.<store>`), a
/// conformance cassette's `config`, `opencat verify` flags — and the one path from settings to a ``StoreAdapter``.
///
/// The settings are a JSON object whose keys each built-in adapter documents on its
/// ``ConfigurableStoreAdapter/init(configuration:context:)``. Keys an adapter does not read are ignored, so a server
/// may keep its own (webhook secrets, refund-report intervals) beside them. A secret named `key` is given in exactly
/// one of three ways: `key` (the value itself, only when ``Context/allowsInlineSecrets``), `keyEnv` (an environment
/// variable's name) or `keyFile` (a file's path, read with ``Context/readFile``).
///
/// Errors are ``StoreAdapterError`` `misconfigured` whose message starts with the key at fault
/// (`clientSecretEnv: the environment variable PAYPAL_SECRET is not set`), never with a secret.
public struct StoreAdapterConfiguration: Sendable {
    /// The store the settings are for.
    public var store: Store
    /// The settings.
    public var settings: [String: JSONValue]

    /// Settings for a store.
    public init(store: Store, settings: [String: JSONValue]) {
        self.store = store
        self.settings = settings
    }

    /// The adapter types built from settings, one for each store of `Store.known`: a new store's
    /// adapter is added here, nowhere else.
    public static let builtIn: [any ConfigurableStoreAdapter.Type] = [
        AppleStoreAdapter.self, GooglePlayAdapter.self, StripeAdapter.self, PayPalAdapter.self, SteamAdapter.self,
    ]

    /// The built-in adapter type for a store, if there is one.
    public static func adapterType(for store: Store) -> (any ConfigurableStoreAdapter.Type)? {
        builtIn.first { $0.verifiedStore == store }
    }

    /// The proof kinds the built-in adapter of a store accepts (empty for a store without one).
    public static func acceptedProofKinds(for store: Store) -> Set<PurchaseProof.Kind> {
        adapterType(for: store)?.acceptedProofKinds ?? []
    }

    /// Whether the store's built-in adapter reads the app's user id from a purchase
    /// (``ConfigurableStoreAdapter/carriesAppUserId``); `false` for a store without one.
    public static func carriesAppUserId(_ store: Store) -> Bool {
        adapterType(for: store)?.carriesAppUserId ?? false
    }

    /// Builds the store's built-in adapter from the settings.
    /// - Throws: ``StoreAdapterError`` `misconfigured` for a store without a built-in adapter or settings it cannot
    ///   use; the adapter's own errors (an unreadable key: `unauthorized`).
    public func makeAdapter(_ context: Context) throws(StoreAdapterError) -> any StoreAdapter {
        guard let type = Self.adapterType(for: store) else {
            throw StoreAdapterError(.misconfigured, store: store, "\(store) is not a store with a built-in adapter")
        }
        return try type.init(configuration: self, context: context)
    }
}

extension StoreAdapterConfiguration {
    /// What the settings' references resolve against, and what every adapter is given.
    public struct Context: Sendable {
        /// The HTTP client every adapter calls its store with.
        public var httpClient: HTTPClient
        /// Where adapters log (never credentials, tokens or bodies).
        public var logger: Logger
        /// The environment `…Env` keys are read from.
        public var environment: [String: String]
        /// Whether a secret may be given inline (tests, cassettes, a command line's files already read); a
        /// server's configuration file names variables or files instead.
        public var allowsInlineSecrets: Bool
        /// Reads a file the settings name: its path as written, and whether it holds a secret (a server checks
        /// that such a file is owner-only). Its error's description should name the path, never the content.
        public var readFile: @Sendable (_ path: String, _ holdsSecret: Bool) throws -> Data

        /// A context.
        /// - Parameters:
        ///   - httpClient: see ``httpClient``.
        ///   - logger: see ``logger`` (default: off).
        ///   - environment: see ``environment``.
        ///   - allowsInlineSecrets: see ``allowsInlineSecrets``.
        ///   - readFile: see ``readFile`` (default: the local file system, paths as given).
        public init(
            httpClient: HTTPClient = HTTPClient(),
            logger: Logger = Logger(label: "dev.opencat.stores", factory: { _ in SwiftLogNoOpLogHandler() }),
            environment: [String: String] = [:],
            allowsInlineSecrets: Bool = false,
            readFile: @escaping @Sendable (_ path: String, _ holdsSecret: Bool) throws -> Data = { path, _ in
                try Data(contentsOf: URL(fileURLWithPath: path))
            }
        ) {
            self.httpClient = httpClient
            self.logger = logger
            self.environment = environment
            self.allowsInlineSecrets = allowsInlineSecrets
            self.readFile = readFile
        }
    }
}

// MARK: - Reading settings

extension StoreAdapterConfiguration {
    /// A `misconfigured` error about a key.
    public func error(_ key: String, _ reason: String) -> StoreAdapterError {
        StoreAdapterError(.misconfigured, store: store, "\(key): \(reason)")
    }

    /// A required string.
    public func string(_ key: String) throws(StoreAdapterError) -> String {
        guard let value = try optionalString(key) else { throw error(key, "missing") }
        return value
    }

    /// A string, if present (`null` counts as absent).
    public func optionalString(_ key: String) throws(StoreAdapterError) -> String? {
        switch settings[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw error(key, "expected a string, found \(other.typeName)")
        }
    }

    /// A boolean, or `fallback` when absent.
    public func bool(_ key: String, default fallback: Bool) throws(StoreAdapterError) -> Bool {
        switch settings[key] {
        case nil, .null?: return fallback
        case .bool(let value)?: return value
        case let other?: throw error(key, "expected true or false, found \(other.typeName)")
        }
    }

    /// An integer of type `T`, if present.
    public func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type) throws(StoreAdapterError) -> T? {
        switch settings[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let value = T(text) else { throw error(key, "expected an integer in \(T.min)…\(T.max)") }
            return value
        case let other?: throw error(key, "expected an integer, found \(other.typeName)")
        }
    }

    /// An object of strings (`{"a": "b"}`), empty when absent.
    public func stringMap(_ key: String) throws(StoreAdapterError) -> [String: String] {
        switch settings[key] {
        case nil, .null?: return [:]
        case .object(let members)?:
            var map: [String: String] = [:]
            for (name, value) in members {
                guard let text = value.stringValue else { throw error("\(key).\(name)", "expected a string") }
                map[name] = text
            }
            return map
        case let other?: throw error(key, "expected an object, found \(other.typeName)")
        }
    }

    /// A URL, or `fallback` when absent: https, or http only to a loopback host (mock stores).
    public func url(_ key: String, default fallback: URL) throws(StoreAdapterError) -> URL {
        try optionalURL(key) ?? fallback
    }

    /// A URL if present: https, or http only to a loopback host (mock stores).
    public func optionalURL(_ key: String) throws(StoreAdapterError) -> URL? {
        guard let text = try optionalString(key) else { return nil }
        guard let url = URL(string: text), let host = url.host, !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
        else { throw error(key, "\(text): store URLs are https (or http to loopback, for mock stores)") }
        return url
    }

    /// A secret named `key`: given inline (`key`), by environment variable (`keyEnv`) or by file (`keyFile`, its
    /// text without surrounding white space); `nil` when none is given.
    /// - Throws: `misconfigured` when more than one is given, an inline secret is not allowed, the variable is not
    ///   set or the file cannot be read.
    public func optionalSecret(_ key: String, _ context: Context) throws(StoreAdapterError) -> Secret<String>? {
        let given = [key, key + "Env", key + "File"].filter { settings[$0] != nil && settings[$0] != .null }
        guard given.count <= 1 else {
            throw error(given.joined(separator: " / "), "give only one of them")
        }
        if try optionalString(key) != nil {
            guard context.allowsInlineSecrets, let value = try optionalString(key) else {
                throw error(key, "a secret is named by \(key)Env or \(key)File, never written here")
            }
            return Secret(value)
        }
        if let name = try optionalString(key + "Env") {
            guard let value = context.environment[name], !value.isEmpty else {
                throw error(key + "Env", "the environment variable \(name) is not set")
            }
            return Secret(value)
        }
        if let path = try optionalString(key + "File") {
            let data = try file(key + "File", path, holdsSecret: true, context)
            return Secret(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }

    /// A required secret (see ``optionalSecret(_:_:)``).
    public func secret(_ key: String, _ context: Context) throws(StoreAdapterError) -> Secret<String> {
        guard let value = try optionalSecret(key, context) else { throw error(key + "Env", "missing") }
        return value
    }

    /// A file's bytes, through the context.
    public func file(_ key: String, _ path: String, holdsSecret: Bool, _ context: Context) throws(StoreAdapterError)
        -> Data
    {
        do { return try context.readFile(path, holdsSecret) } catch let failure as StoreAdapterError {
            throw error(key, failure.message)
        } catch let failure as CocoaError where failure.code == .fileReadNoSuchFile || failure.code == .fileNoSuchFile {
            throw error(key, "\(path) does not exist")
        } catch {
            throw self.error(key, "\(path) cannot be read")
        }
    }

    /// Product id → exact price, from `{"product": {"amount": "4.99", "currency": "USD"}}`; empty when absent.
    public func prices(_ key: String) throws(StoreAdapterError) -> [String: Money] {
        switch settings[key] {
        case nil, .null?: return [:]
        case .object(let members)?:
            var prices: [String: Money] = [:]
            for (product, value) in members {
                guard let amount = value["amount"]?.stringValue, let currency = value["currency"]?.stringValue,
                    let money = Self.price(amount: amount, currency: currency)
                else {
                    throw error("\(key).\(product)", #"expected {"amount": "4.99", "currency": "USD"}"#)
                }
                prices[product] = money
            }
            return prices
        case let other?: throw error(key, "expected an object, found \(other.typeName)")
        }
    }

    /// The one price parser of store settings: an exact decimal amount (`4.99`, never binary floating point) and
    /// an ISO 4217 code of three letters (`USD`).
    /// - Returns: the price, or `nil` when either part is malformed.
    public static func price(amount: String, currency: String) -> Money? {
        guard currency.count == 3, currency.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else { return nil }
        return Money(decimalString: amount, currency: currency)
    }
}

/// A ``StoreAdapter`` that declares, without an instance, the store it verifies and the proofs it accepts, and is
/// built from ``StoreAdapterConfiguration`` settings: what a store needs to be listed in
/// ``StoreAdapterConfiguration/builtIn``.
public protocol ConfigurableStoreAdapter: StoreAdapter {
    /// The store this adapter type verifies.
    static var verifiedStore: Store { get }
    /// The proof kinds ``StoreAdapter/verify(_:)`` takes; any other is refused.
    static var acceptedProofKinds: Set<PurchaseProof.Kind> { get }
    /// Whether the store carries the app's own user id on a purchase (set by the app when it starts the purchase), so
    /// a server binds a receipt to its app user by setting `PurchaseProof.expectedPurchaser`. Default `false`.
    static var carriesAppUserId: Bool { get }
    /// Builds the adapter from settings (their keys are documented on each adapter).
    /// - Throws: ``StoreAdapterError`` `misconfigured` naming the key at fault.
    init(configuration: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
}

extension ConfigurableStoreAdapter {
    /// Stores carry no app user id unless their adapter says so.
    public static var carriesAppUserId: Bool { false }
}
