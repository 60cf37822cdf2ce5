import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat apple …`: what an app server produces for the App Store (offer signatures) and reads from it (legacy
/// receipts).
struct AppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "App Store tools: promotional offer signatures, offer JWS, legacy receipts.",
        discussion: """
            The signing key is the In-App Purchase key (.p8) from App Store Connect, read from a file, never from an \
            argument. Exit status 0: printed; 64: usage error (a bad UUID, a missing or unusable key file).
            """,
        subcommands: [AppleOfferSignature.self, AppleOfferJWS.self, AppleReceiptCommand.self]
    )
}

/// `opencat apple offer-signature`: the original promotional offer signature (SKPaymentDiscount,
/// Product.SubscriptionOffer.Signature), base64 DER ECDSA P-256.
struct AppleOfferSignature: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer-signature",
        abstract: "Print a promotional offer signature (base64 DER ECDSA P-256 over the documented fields).",
        discussion: """
            Signs bundle id, key id, product id, offer id, app account token, nonce and timestamp joined by U+2063 \
            (UUIDs lowercase), as "Generating a signature for promotional offers" describes. --print-payload also \
            prints the signed string (with each U+2063 shown as \\u2063) on standard error.
            """
    )

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id.")
    var bundleId: String

    @Option(name: .customLong("key-id"), help: "The In-App Purchase key's id in App Store Connect.")
    var keyId: String

    @Option(name: .customLong("key-file"), help: "The In-App Purchase key (.p8, PKCS#8 PEM).")
    var keyFile: String

    @Option(name: .customLong("product-id"), help: "The subscription's product id.")
    var productId: String

    @Option(name: .customLong("offer-id"), help: "The promotional offer's id in App Store Connect.")
    var offerId: String

    @Option(
        name: .customLong("app-account-token"),
        help: "The purchase's appAccountToken (applicationUsername), a UUID; omit for none."
    )
    var appAccountToken: String?

    @Option(name: .customLong("nonce"), help: "A one-time UUID, new for every signature.")
    var nonce: String

    @Option(name: .customLong("timestamp"), help: "UNIX time in milliseconds (the offer is valid for 24 hours).")
    var timestamp: Int64

    @Flag(name: .customLong("print-payload"), help: "Also print the signed string on standard error.")
    var printPayload = false

    func validate() throws {
        _ = try AppleOfferOptions.uuid(nonce, "--nonce")
        _ = try appAccountToken.map { try AppleOfferOptions.uuid($0, "--app-account-token") }
        guard timestamp >= 0 else { throw ValidationError("--timestamp is UNIX time in milliseconds, not negative") }
    }

    func run() throws {
        let signer = try AppleOfferOptions.usable { () throws(StoreAdapterError) in
            try ApplePromotionalOfferSigner(keyId: keyId, bundleId: bundleId, pemFile: keyFile)
        }
        let nonce = try AppleOfferOptions.uuid(nonce, "--nonce")
        let token = try appAccountToken.map { try AppleOfferOptions.uuid($0, "--app-account-token") }
        if printPayload {
            let payload = signer.payload(
                productId: productId,
                offerId: offerId,
                appAccountToken: token,
                nonce: nonce,
                timestamp: timestamp
            )
            let shown = payload.replacingOccurrences(of: ApplePromotionalOfferSigner.separator, with: "\\u2063")
            FileHandle.standardError.write(Data("payload: \(shown)\n".utf8))
        }
        let signature = try AppleOfferOptions.signed { () throws(StoreAdapterError) -> String in
            try signer.signature(
                productId: productId,
                offerId: offerId,
                appAccountToken: token,
                nonce: nonce,
                timestamp: timestamp
            )
        }
        print(signature)
    }
}

/// `opencat apple offer-jws`: a signed request for StoreKit (promotional offer V2, introductory offer eligibility).
struct AppleOfferJWS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer-jws",
        abstract: "Print a compact JWS for a promotional offer (V2) or introductory offer eligibility.",
        discussion: """
            ES256 with header {alg, kid, typ: JWT} and claims iss, iat, aud, bid, nonce and the offer's own \
            (productId; offerIdentifier and optional transactionId for --kind promotional; allowIntroductoryOffer \
            and transactionId for --kind introductory-eligibility), as "Generating JWS to sign App Store requests" \
            describes.
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case promotional
        case introductoryEligibility = "introductory-eligibility"
    }

    @Option(name: .customLong("kind"), help: "promotional or introductory-eligibility.")
    var kind: Kind

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id (bid).")
    var bundleId: String

    @Option(name: .customLong("issuer-id"), help: "The issuer id from App Store Connect's Keys page (iss).")
    var issuerId: String

    @Option(name: .customLong("key-id"), help: "The key's id in App Store Connect (kid).")
    var keyId: String

    @Option(name: .customLong("key-file"), help: "The key (.p8, PKCS#8 PEM).")
    var keyFile: String

    @Option(name: .customLong("product-id"), help: "The subscription's product id.")
    var productId: String

    @Option(name: .customLong("offer-id"), help: "The promotional offer's id (--kind promotional).")
    var offerId: String?

    @Option(
        name: .customLong("transaction-id"),
        help: "Any transaction of the customer (optional for promotional, required for introductory-eligibility)."
    )
    var transactionId: String?

    @Option(
        name: .customLong("allow-introductory-offer"),
        help: "true or false (--kind introductory-eligibility)."
    )
    var allowIntroductoryOffer: Bool?

    @Option(name: .customLong("nonce"), help: "A one-time UUID; random when omitted.")
    var nonce: String?

    @Option(name: .customLong("issued-at"), help: "iat, UNIX seconds; now when omitted.")
    var issuedAt: Int64?

    func validate() throws {
        _ = try nonce.map { try AppleOfferOptions.uuid($0, "--nonce") }
        switch kind {
        case .promotional:
            guard offerId != nil else { throw ValidationError("--kind promotional needs --offer-id") }
            guard allowIntroductoryOffer == nil else {
                throw ValidationError("--allow-introductory-offer is for --kind introductory-eligibility")
            }
        case .introductoryEligibility:
            guard allowIntroductoryOffer != nil, transactionId != nil else {
                throw ValidationError(
                    "--kind introductory-eligibility needs --allow-introductory-offer and --transaction-id"
                )
            }
            guard offerId == nil else { throw ValidationError("--offer-id is for --kind promotional") }
        }
        if let issuedAt, issuedAt < 0 { throw ValidationError("--issued-at is UNIX time in seconds, not negative") }
    }

    func run() throws {
        let signer = try AppleOfferOptions.usable { () throws(StoreAdapterError) in
            try AppleOfferJWSSigner(keyId: keyId, issuerId: issuerId, bundleId: bundleId, pemFile: keyFile)
        }
        let nonce = try nonce.map { try AppleOfferOptions.uuid($0, "--nonce") } ?? UUID()
        let issuedAt = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let jws = try AppleOfferOptions.signed { () throws(StoreAdapterError) -> String in
            switch kind {
            case .promotional:
                try signer.promotionalOffer(
                    productId: productId,
                    offerIdentifier: offerId ?? "",
                    transactionId: transactionId,
                    nonce: nonce,
                    issuedAt: issuedAt
                )
            case .introductoryEligibility:
                try signer.introductoryOfferEligibility(
                    productId: productId,
                    allowIntroductoryOffer: allowIntroductoryOffer ?? false,
                    transactionId: transactionId ?? "",
                    nonce: nonce,
                    issuedAt: issuedAt
                )
            }
        }
        print(jws)
    }
}

/// What the offer commands share: UUID parsing and the mapping of the signers' errors to exit statuses.
enum AppleOfferOptions {
    /// A UUID option, or a usage error naming it.
    static func uuid(_ text: String, _ option: String) throws -> UUID {
        guard let uuid = UUID(uuidString: text) else { throw ValidationError("\(option) is not a UUID: \(text)") }
        return uuid
    }

    /// Builds a signer; an unreadable or unusable key file is a usage error (exit 64).
    static func usable<Signer>(_ body: () throws(StoreAdapterError) -> Signer) throws -> Signer {
        do throws(StoreAdapterError) {
            return try body()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Signs; a failure prints its reason and exits 1.
    static func signed(_ body: () throws(StoreAdapterError) -> String) throws -> String {
        do throws(StoreAdapterError) {
            return try body()
        } catch {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }
}
