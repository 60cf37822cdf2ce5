import ArgumentParser
import Foundation
import OpenCatCore
import StarknetCrypto

/// `opencat starknet`: Starknet hashes, keys, signatures and transaction hashes, computed offline.
struct StarknetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "starknet",
        abstract: "Starknet cryptography offline: Pedersen, Poseidon, selectors, keys, ECDSA, INVOKE v3 hashes.",
        discussion: """
            Numbers are read as 0x hexadecimal or decimal and must be field elements (below P = 2^251 + 17·2^192 + 1); \
            every result is printed as 0x-prefixed lowercase hex. Bad input exits 64 with the reason.
            """,
        subcommands: [
            StarknetPedersen.self, StarknetPoseidon.self, StarknetSelector.self, StarknetPublicKey.self,
            StarknetSign.self, StarknetVerify.self, StarknetTransactionHash.self,
        ]
    )

    static func felt(_ text: String, _ name: String) throws -> Felt {
        do { return try Felt(parsing: text.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw ValidationError("\(name): \(error.reason)")
        }
    }

    static func privateKey(file: String) throws -> StarkPrivateKey {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("cannot read the private key file \(file)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        do { return try StarkPrivateKey(hex: Secret(text)) } catch {
            throw ValidationError("the private key file: \(error.reason)")
        }
    }
}

/// `opencat starknet pedersen A B`.
struct StarknetPedersen: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pedersen", abstract: "Pedersen hash of two felts.")

    @Argument(help: "The first felt.") var a: String
    @Argument(help: "The second felt.") var b: String

    func run() throws {
        print(Pedersen.hash(try StarknetCommand.felt(a, "A"), try StarknetCommand.felt(b, "B")).hexString)
    }
}

/// `opencat starknet poseidon X [Y …]`.
struct StarknetPoseidon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poseidon",
        abstract: "Poseidon hash: one felt (hash_single), two (hash), three or more (hash_many).",
        discussion: """
            --many hashes any number of felts (none, one or two too) with poseidon_hash_many; without it at least one \
            felt is needed.
            """
    )

    @Argument(help: "The felts (none at all with --many: poseidon_hash_many of the empty array).")
    var values: [String] = []
    @Flag(name: .customLong("many"), help: "Use poseidon_hash_many whatever the count.") var many = false

    func validate() throws {
        guard !values.isEmpty || many else { throw ValidationError("give at least one felt (or --many for none)") }
    }

    func run() throws {
        let felts = try values.enumerated().map { try StarknetCommand.felt($1, "value \($0 + 1)") }
        let hash: Felt =
            switch (many, felts.count) {
            case (false, 1): Poseidon.hash(felts[0])
            case (false, 2): Poseidon.hash(felts[0], felts[1])
            default: Poseidon.hash(many: felts)
            }
        print(hash.hexString)
    }
}

/// `opencat starknet selector NAME`.
struct StarknetSelector: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selector",
        abstract: "An entry point's selector: starknet_keccak(NAME)."
    )

    @Argument(help: "The entry point's name (transfer, balance_of, __execute__, …).") var name: String

    func run() { print(StarknetKeccak.selector(name).hexString) }
}

/// `opencat starknet public-key --private-key-file F`.
struct StarknetPublicKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "public-key",
        abstract: "The Stark public key (x of d·G) of the private key in a file."
    )

    @Option(name: .customLong("private-key-file"), help: "A file holding the private key in hex.")
    var privateKeyFile: String

    func run() throws { print(try StarknetCommand.privateKey(file: privateKeyFile).publicKey.hexString) }
}

/// `opencat starknet sign --private-key-file F --hash H`.
struct StarknetSign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a message hash: prints r, then s, one per line.",
        discussion: """
            Deterministic k as cairo-lang, starknet-rs and starknet.js generate it (RFC 6979 with HMAC-SHA256, no extra \
            entropy), so the signature is the one those libraries produce. The hash must be below 2^251.
            """
    )

    @Option(name: .customLong("private-key-file"), help: "A file holding the private key in hex.")
    var privateKeyFile: String
    @Option(name: .customLong("hash"), help: "The message hash.") var hash: String

    func run() throws {
        let key = try StarknetCommand.privateKey(file: privateKeyFile)
        let message = try StarknetCommand.felt(hash, "--hash")
        do {
            let signature = try StarkECDSA.sign(message, with: key)
            print(signature.r.hexString)
            print(signature.s.hexString)
        } catch {
            throw ValidationError("--hash: \(error.reason)")
        }
    }
}

/// `opencat starknet verify --public-key X --hash H --r R --s S`: exit 0 valid, 2 invalid.
struct StarknetVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a signature: prints valid (exit 0) or invalid (exit 2)."
    )

    @Option(name: .customLong("public-key"), help: "The Stark public key (x coordinate).") var publicKey: String
    @Option(name: .customLong("hash"), help: "The message hash.") var hash: String
    @Option(name: .customLong("r"), help: "r.") var r: String
    @Option(name: .customLong("s"), help: "s.") var s: String

    func run() throws {
        let valid = StarkECDSA.verify(
            publicKey: try StarknetCommand.felt(publicKey, "--public-key"),
            hash: try StarknetCommand.felt(hash, "--hash"),
            signature: StarkSignature(r: try StarknetCommand.felt(r, "--r"), s: try StarknetCommand.felt(s, "--s"))
        )
        print(valid ? "valid" : "invalid")
        if !valid { throw ExitCode(2) }
    }
}

/// `opencat starknet tx-hash --invoke-v3 FILE`.
struct StarknetTransactionHash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tx-hash",
        abstract: "The hash of an INVOKE v3 transaction written as in the JSON-RPC specification.",
        discussion: """
            FILE holds sender_address, calldata, nonce, resource_bounds (l1_gas, l2_gas, l1_data_gas, each \
            {max_amount, max_price_per_unit}), tip, paymaster_data, account_deployment_data, \
            nonce_data_availability_mode, fee_data_availability_mode (L1 or L2), and chain_id (SN_MAIN, SN_SEPOLIA or \
            hex). A version of 0x100000000000000000000000000000003 hashes the query (fee estimation) version.
            """
    )

    @Option(name: .customLong("invoke-v3"), help: "The transaction's JSON file.") var file: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("cannot read \(file)")
        }
        guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ValidationError("\(file) is not a JSON object")
        }
        guard let chainText = object.removeValue(forKey: "chain_id") as? String else {
            throw ValidationError("\(file): chain_id (SN_MAIN, SN_SEPOLIA or hex) is required")
        }
        var query = false
        if let version = object.removeValue(forKey: "version") {
            let text = "\(version)"
            let value = UInt256(text)
            if value == (UInt256.one << 128) | UInt256(3) {
                query = true
            } else if value != UInt256(3) {
                throw ValidationError("\(file): version must be 0x3 (or the query version)")
            }
        }
        do {
            let chain = try StarknetChainID(parsing: chainText)
            let transaction = try JSONDecoder().decode(
                InvokeTransactionV3.self,
                from: JSONSerialization.data(withJSONObject: object)
            )
            print(try transaction.hash(chainID: chain, queryVersion: query).hexString)
        } catch let error as StarknetCryptoError {
            throw ValidationError("\(file): \(error.reason)")
        } catch let error as DecodingError {
            throw ValidationError("\(file): \(Self.describe(error))")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            (context.codingPath + [key]).map(\.stringValue).joined(separator: ".") + " is missing"
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            context.codingPath.map(\.stringValue).joined(separator: ".") + ": " + context.debugDescription
        @unknown default: "not an INVOKE v3 transaction"
        }
    }
}
