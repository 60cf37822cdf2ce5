public import Foundation
import OpenCatCore
public import OpenCatTesting

/// Loads cassette files for a run: each file is read (size-capped) and parsed once, the App Store payloads its
/// `config.signedPayloads` lists are signed with the run's ``MockAppleCA``, and its placeholders are filled.
///
/// For each `config.signedPayloads.NAME`, a cassette can use `{{apple.signed.NAME}}` (the payload as a JWS that
/// verifies against ``appleCA``'s root) and `{{apple.tampered.NAME}}` (the same JWS with its payload altered after
/// signing). Other signed formats plug in through ``signers``: for `signers["licenses"] = ("keyserver.license", sign)`
/// each `config.licenses.NAME` becomes `{{keyserver.license.NAME}}`. Other placeholders come from ``variables``.
public struct FixtureLoader: Sendable {
    /// The CA that signs every App Store payload.
    public let appleCA: MockAppleCA
    /// Placeholder name → value (credentials, for example `stripe.secretKey`).
    public var variables: [String: String]
    /// `config` member → (placeholder prefix, signer): each payload under the member is signed and offered as
    /// `{{prefix.NAME}}`.
    public var signers: [String: Signer]

    /// Signs one payload of a cassette's `config` into the text a placeholder stands for.
    public struct Signer: Sendable {
        public var placeholderPrefix: String
        public var sign: @Sendable (JSONValue) throws -> String

        public init(placeholderPrefix: String, sign: @escaping @Sendable (JSONValue) throws -> String) {
            self.placeholderPrefix = placeholderPrefix
            self.sign = sign
        }
    }

    /// Creates a loader.
    public init(appleCA: MockAppleCA, variables: [String: String] = [:], signers: [String: Signer] = [:]) {
        self.appleCA = appleCA
        self.variables = variables
        self.signers = signers
    }

    /// Loads one cassette file.
    /// - Throws: ``CassetteError`` naming the file and the field.
    public func load(_ url: URL) throws -> Cassette {
        let name = Self.displayName(url)
        return try decode(try Cassette.readFile(at: url, displayName: name), file: name)
    }

    /// Decodes one cassette.
    /// - Throws: ``CassetteError`` naming the file and the field.
    public func decode(_ data: Data, file: String) throws -> Cassette {
        let template = try Cassette.decodeTemplate(data, file: file)
        var values = variables
        if case .object(let payloads)? = template.config["signedPayloads"] {
            for (name, payload) in payloads {
                let jws = appleCA.signJWS(payload)
                values["apple.signed.\(name)"] = jws
                values["apple.tampered.\(name)"] = Self.tampered(jws, payload: payload)
            }
        }
        for (member, signer) in signers {
            guard case .object(let payloads)? = template.config[member] else { continue }
            for (name, payload) in payloads {
                do { values["\(signer.placeholderPrefix).\(name)"] = try signer.sign(payload) } catch {
                    throw CassetteError(
                        file: file,
                        field: "config.\(member).\(name)",
                        message: "cannot be signed: \(error)"
                    )
                }
            }
        }
        return try template.resolving(values, file: file)
    }

    /// The JWS with its payload altered after signing (an extra member), signature kept.
    static func tampered(_ jws: String, payload: JSONValue) -> String {
        guard case .object(var members) = payload else { return jws + "x" }
        members["tampered"] = .bool(true)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return jws + "x" }
        return "\(parts[0]).\(Base64URL.encode(JSONValue.object(members).serialized())).\(parts[2])"
    }

    /// How reports name a file: its last three path components (`Fixtures/stripe/paid.json`).
    public static func displayName(_ url: URL) -> String {
        url.pathComponents.suffix(3).joined(separator: "/")
    }
}
