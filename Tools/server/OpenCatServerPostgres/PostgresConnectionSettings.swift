public import Foundation
import OpenCatServer
public import PostgresNIO

/// TLS to PostgreSQL (`--database-tls`).
public enum PostgresTLSMode: String, Sendable, Hashable, CaseIterable {
    /// Plain TCP (the default): loopback or a private network only.
    case disable
    /// TLS when the server offers it, its certificate verified (CA bundle or the system's roots, and the server
    /// name); plain TCP when the server offers no TLS at all.
    case prefer
    /// TLS or no connection, the certificate verified as for `prefer`.
    case require
}

/// Where the database password comes from instead of the URL (`--database-password-file`,
/// `--database-password-env`). It overrides a password in the URL.
public enum PostgresPasswordSource: Sendable, Hashable {
    /// An owner-only file holding the password (a trailing newline is ignored).
    case file(String)
    /// An environment variable holding the password.
    case environment(String)
}

/// Why the PostgreSQL settings could not become a configuration, typed. Never carries the password, the URL or
/// the URL's password: a URL is described by the fields it lacks, a file by its path.
public struct PostgresConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; an open set.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// Not `postgres://user[:password]@host[:port]/database`.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// Not `disable`, `prefer` or `require`.
        public static let invalidTLSMode = Code(rawValue: "invalidTLSMode")
        /// The CA bundle cannot be read (missing, unreadable).
        public static let caFileUnreadable = Code(rawValue: "caFileUnreadable")
        /// The CA bundle holds no PEM certificate.
        public static let caFileInvalid = Code(rawValue: "caFileInvalid")
        /// The password file cannot be read, is empty, or is readable by others.
        public static let passwordFileUnreadable = Code(rawValue: "passwordFileUnreadable")
        /// The password variable is not set (or empty).
        public static let passwordVariableUnset = Code(rawValue: "passwordVariableUnset")
        /// Options that do not go together (a CA file or server name with TLS off).
        public static let conflictingOptions = Code(rawValue: "conflictingOptions")
    }

    /// What failed.
    public var code: Code
    /// What failed, in words: a file by its path, never a password or the URL.
    public var message: String

    /// An error with its code and a message that holds no secret.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `PostgresConfigurationError.<code>: <message>` (no password, no URL).
    public var description: String { "PostgresConfigurationError.\(code): \(message)" }
}

/// The one place the server turns its database settings — a `postgres://` URL, a TLS mode, an optional CA bundle
/// (PEM) and server name, and where the password comes from — into a PostgresNIO `PostgresClient.Configuration`.
/// `opencat-server serve` (the ledger) and `opencat-server llm-keys` (the LLM key store) both use it.
///
/// ```swift
/// let settings = PostgresConnectionSettings(tls: .require, caFile: "/etc/opencat/db-ca.pem",
///                                           password: .file("/run/secrets/db-password"))
/// let configuration = try settings.configuration(url: "postgres://opencat@db.internal:5432/opencat")
/// ```
public struct PostgresConnectionSettings: Sendable, Hashable {
    /// TLS off, preferred, or required.
    public var tls: PostgresTLSMode
    /// A PEM bundle of the CA certificates the server's certificate must chain to (instead of the system's roots).
    public var caFile: String?
    /// The name the server's certificate must carry (default: the URL's host, unless it is an IP address).
    public var serverName: String?
    /// Where the password comes from, overriding the URL's (nil: the URL's, if any).
    public var password: PostgresPasswordSource?

    /// Settings: no TLS, the system's CA roots, the URL's host as the server name and the URL's password by default.
    public init(
        tls: PostgresTLSMode = .disable,
        caFile: String? = nil,
        serverName: String? = nil,
        password: PostgresPasswordSource? = nil
    ) {
        self.tls = tls
        self.caFile = caFile
        self.serverName = serverName
        self.password = password
    }

    /// Settings from the command line's text: `tls` is `disable`, `prefer` or `require`; at most one password source.
    /// - Throws: ``PostgresConfigurationError`` `.invalidTLSMode`, or `.conflictingOptions` for both a password file
    ///   and a password variable.
    public init(
        tls: String,
        caFile: String? = nil,
        serverName: String? = nil,
        passwordFile: String? = nil,
        passwordVariable: String? = nil
    ) throws(PostgresConfigurationError) {
        guard let mode = PostgresTLSMode(rawValue: tls) else {
            throw PostgresConfigurationError(.invalidTLSMode, "the TLS mode is disable, prefer or require")
        }
        let password: PostgresPasswordSource?
        switch (passwordFile, passwordVariable) {
        case (let file?, nil): password = .file(file)
        case (nil, let name?): password = .environment(name)
        case (nil, nil): password = nil
        case (_?, _?):
            throw PostgresConfigurationError(
                .conflictingOptions,
                "give the password as a file or as an environment variable, not both"
            )
        }
        self.init(tls: mode, caFile: caFile, serverName: serverName, password: password)
        try checkCombination()
    }

    /// The NIOSSL configuration for `prefer` and `require` (nil for `disable`): a client configuration with full
    /// certificate verification, trusting the CA bundle's certificates only when ``caFile`` is set.
    /// - Throws: ``PostgresConfigurationError`` `.caFileUnreadable`, `.caFileInvalid`, `.conflictingOptions`.
    public func tlsConfiguration() throws(PostgresConfigurationError) -> TLSConfiguration? {
        try checkCombination()
        guard tls != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let caFile {
            guard let bytes = FileManager.default.contents(atPath: caFile) else {
                throw PostgresConfigurationError(.caFileUnreadable, "the CA file \(caFile) cannot be read")
            }
            let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(bytes))
            guard let certificates, !certificates.isEmpty else {
                throw PostgresConfigurationError(.caFileInvalid, "the CA file \(caFile) holds no PEM certificate")
            }
            configuration.trustRoots = .certificates(certificates)
        }
        return configuration
    }

    /// The PostgresNIO configuration for a URL `postgres://user[:password]@host[:port]/database` (or
    /// `postgresql://`): these settings' TLS, server name and password (a password source overrides the URL's).
    /// - Throws: ``PostgresConfigurationError``; its message never holds the URL or a password.
    public func configuration(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(PostgresConfigurationError) -> PostgresClient.Configuration
    {
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql" else {
            throw PostgresConfigurationError(.invalidURL, "expected postgres://user:password@host:port/database")
        }
        var missing: [String] = []
        if (url.host ?? "").isEmpty { missing.append("host") }
        if (url.user ?? "").isEmpty { missing.append("user") }
        if url.path.dropFirst().isEmpty { missing.append("database") }
        guard missing.isEmpty, let host = url.host, let user = url.user else {
            throw PostgresConfigurationError(
                .invalidURL,
                "the URL lacks its \(missing.joined(separator: ", ")) (postgres://user@host:port/database)"
            )
        }
        let tlsConfiguration = try tlsConfiguration()
        let password: String?
        switch self.password {
        case .file(let path)?: password = try Self.password(file: path)
        case .environment(let name)?:
            guard let value = environment[name], !value.isEmpty else {
                throw PostgresConfigurationError(
                    .passwordVariableUnset,
                    "the environment variable \(name) (the database password) is not set"
                )
            }
            password = value
        case nil: password = url.password
        }
        let tls: PostgresClient.Configuration.TLS =
            switch (self.tls, tlsConfiguration) {
            case (.prefer, let configuration?): .prefer(configuration)
            case (.require, let configuration?): .require(configuration)
            default: .disable
            }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: url.port ?? 5432,
            username: user,
            password: password,
            database: String(url.path.dropFirst()),
            tls: tls
        )
        configuration.options.tlsServerName = serverName
        return configuration
    }

    /// A CA file or a server name is for TLS: with TLS off it is a mistake, refused.
    func checkCombination() throws(PostgresConfigurationError) {
        guard tls == .disable else { return }
        if caFile != nil || serverName != nil {
            throw PostgresConfigurationError(
                .conflictingOptions,
                "a CA file or a server name needs TLS (prefer or require), not disable"
            )
        }
    }

    /// The password in an owner-only file, without its trailing newline.
    static func password(file path: String) throws(PostgresConfigurationError) -> String {
        if OwnerOnlyFile.isOpenToOthers(path) {
            throw PostgresConfigurationError(
                .passwordFileUnreadable,
                "the password file \(path) is readable by others (chmod 600 it)"
            )
        }
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw PostgresConfigurationError(.passwordFileUnreadable, "the password file \(path) cannot be read")
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text.removeLast() }
        guard !text.isEmpty else {
            throw PostgresConfigurationError(.passwordFileUnreadable, "the password file \(path) is empty")
        }
        return text
    }
}
