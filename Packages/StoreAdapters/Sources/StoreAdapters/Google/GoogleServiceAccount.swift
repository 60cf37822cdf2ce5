public import Foundation
public import OpenCatCore

/// A Google Cloud service account, as found in its JSON key file.
///
/// Only the fields the OAuth 2.0 JWT-bearer flow needs are read. The private key is a `Secret` and never appears
/// in a description, a log line or an encoding.
///
/// See <https://developers.google.com/identity/protocols/oauth2/service-account#creatinganaccount>.
public struct GoogleServiceAccount: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// Google's token endpoint, the `token_uri` of every key file Google issues today.
    public static let defaultTokenURI = URL(string: "https://oauth2.googleapis.com/token")!

    /// The key file's `type`; `"service_account"` for a service-account key.
    public var type: String
    /// The Cloud project that owns the account (`project_id`).
    public var projectId: String?
    /// The id of the key pair (`private_key_id`), sent as the JWT header's `kid`.
    public var privateKeyId: String
    /// The PEM-encoded PKCS#8 RSA private key (`private_key`).
    public var privateKey: Secret<String>
    /// The account's e-mail address (`client_email`), the JWT's `iss`.
    public var clientEmail: String
    /// The OAuth 2.0 token endpoint (`token_uri`), the JWT's `aud` and where the assertion is posted.
    public var tokenURI: URL

    /// Creates a service account from its parts.
    /// - Parameters:
    ///   - type: the key file's type (default `"service_account"`).
    ///   - projectId: the Cloud project id, if known.
    ///   - privateKeyId: the key id (`kid`).
    ///   - privateKey: the PEM (PKCS#8) RSA private key.
    ///   - clientEmail: the account's e-mail address.
    ///   - tokenURI: the token endpoint (default ``defaultTokenURI``).
    public init(
        type: String = "service_account",
        projectId: String? = nil,
        privateKeyId: String,
        privateKey: Secret<String>,
        clientEmail: String,
        tokenURI: URL = GoogleServiceAccount.defaultTokenURI
    ) {
        self.type = type
        self.projectId = projectId
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
    }

    /// Reads a JSON key file.
    /// - Parameter jsonData: the key file's bytes.
    /// - Throws: ``StoreAdapterError`` with code `unauthorized` when the file is not a service-account key. The
    ///   message names the missing or wrong field, never a value.
    public init(jsonData: Data) throws {
        do {
            self = try JSONDecoder().decode(GoogleServiceAccount.self, from: jsonData)
        } catch let error as StoreAdapterError {
            throw error
        } catch {
            throw StoreAdapterError(
                .unauthorized,
                store: .google,
                "unreadable service account key file: \(StoreHTTP.summary(of: error))"
            )
        }
    }

    private enum CodingKeys: String, CodingKey {
        case type
        case projectId = "project_id"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case tokenURI = "token_uri"
    }

    /// Decodes a key file; `token_uri` defaults to ``defaultTokenURI`` when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "service_account"
        guard type == "service_account" else {
            throw StoreAdapterError(.unauthorized, store: .google, "the key file is not a service account key")
        }
        projectId = try container.decodeIfPresent(String.self, forKey: .projectId)
        privateKeyId = try container.decode(String.self, forKey: .privateKeyId)
        privateKey = try container.decode(Secret<String>.self, forKey: .privateKey)
        clientEmail = try container.decode(String.self, forKey: .clientEmail)
        if let text = try container.decodeIfPresent(String.self, forKey: .tokenURI) {
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .tokenURI,
                    in: container,
                    debugDescription: "token_uri is not an absolute URL"
                )
            }
            tokenURI = url
        } else {
            tokenURI = Self.defaultTokenURI
        }
    }

    /// Names the account and its key id; the private key is shown as `<redacted>`.
    public var description: String {
        "GoogleServiceAccount(clientEmail: \(clientEmail), privateKeyId: \(privateKeyId), privateKey: \(privateKey))"
    }
}
