import Foundation
import OpenCatCore
import Testing

@testable import StarknetCrypto

/// Published vectors (StarkWare's crypto-cpp and cairo-lang, starknet-rs, starknet.js, scure-starknet,
/// starknet.py): each entry names its source in `Vectors/starknet-vectors.json`.
struct Vectors: Decodable {
    struct Pair: Decodable {
        var a: String
        var b: String
        var hash: String
    }
    struct Elements: Decodable {
        var elements: [String]
        var hash: String
    }
    struct Permutation: Decodable {
        var input: [String]
        var output: [String]
    }
    struct PoseidonPair: Decodable {
        var x: String
        var y: String
        var hash: String
    }
    struct PoseidonSingle: Decodable {
        var x: String
        var hash: String
    }
    struct PublicKey: Decodable {
        var private_key: String
        var public_key: String
    }
    struct NonceK: Decodable {
        var msg_hash: String
        var private_key: String
        var seed: String?
        var k: String
    }
    struct Signature: Decodable {
        var name: String
        var private_key: String
        var msg_hash: String
        var k_seed_none: String?
        var r: String
        var s: String
    }
    struct Verification: Decodable {
        var name: String
        var public_key: String
        var msg_hash: String
        var r: String
        var s: String
        var valid: Bool
    }
    struct Keccak: Decodable {
        var data_hex: String
        var hash: String
    }
    struct Selector: Decodable {
        var function_name: String
        var selector: String
    }
    struct FeeField: Decodable {
        var tip: String
        var l1_gas: [String]
        var l2_gas: [String]
        var l1_data_gas: [String]
        var hash: String
    }
    struct TypedDataVector: Decodable {
        var name: String
        var account: String
        var message_hash: String
        var primary_type_hash: String?
        var encoded_primary_type: String?
        var typed_data: TypedData
    }

    var pedersen: [Pair]
    var pedersen_array: [Elements]
    var poseidon_perm: [Permutation]
    var poseidon_hash: [PoseidonPair]
    var poseidon_single: [PoseidonSingle]
    var poseidon_many: [Elements]
    var ecdsa_pubkey: [PublicKey]
    var rfc6979_k: [NonceK]
    var ecdsa_sign: [Signature]
    var ecdsa_verify: [Verification]
    var keccak256: [Keccak]
    var starknet_keccak: [Keccak]
    var selector: [Selector]
    var tx_fee_field: [FeeField]
    var snip12_rev1: [TypedDataVector]

    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Vectors/starknet-vectors.json")

    static let all: Vectors = {
        do {
            return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        } catch {
            fatalError("starknet-vectors.json: \(error)")
        }
    }()

    static func rawInvokeTransactions() throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        return object?["invoke_v3"] as? [[String: Any]] ?? []
    }
}

func felt(_ text: String) throws -> Felt { try Felt(hex: text) }

func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.dropFirst(2).utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
    }
}

@Suite struct StarknetVectorTests {
    @Test func pedersen() throws {
        for vector in Vectors.all.pedersen {
            #expect(Pedersen.hash(try felt(vector.a), try felt(vector.b)).hexString == vector.hash)
        }
        for vector in Vectors.all.pedersen_array {
            #expect(Pedersen.hash(array: try vector.elements.map(felt)).hexString == vector.hash)
        }
    }

    @Test func poseidon() throws {
        for vector in Vectors.all.poseidon_perm {
            let input = try vector.input.map(felt)
            let output = Poseidon.permutation((input[0], input[1], input[2]))
            #expect([output.0, output.1, output.2].map(\.hexString) == vector.output)
        }
        for vector in Vectors.all.poseidon_hash {
            #expect(Poseidon.hash(try felt(vector.x), try felt(vector.y)).hexString == vector.hash)
        }
        for vector in Vectors.all.poseidon_single {
            #expect(Poseidon.hash(try felt(vector.x)).hexString == vector.hash)
        }
        for vector in Vectors.all.poseidon_many {
            #expect(Poseidon.hash(many: try vector.elements.map(felt)).hexString == vector.hash)
        }
    }

    @Test func publicKeys() throws {
        for vector in Vectors.all.ecdsa_pubkey {
            let key = try StarkPrivateKey(hex: Secret(vector.private_key))
            #expect(key.publicKey.hexString == vector.public_key)
        }
    }

    @Test func rfc6979Nonces() throws {
        for vector in Vectors.all.rfc6979_k {
            let seed = try vector.seed.map { try UInt256(hex: $0) }
            let k = RFC6979.generateK(
                hash: try UInt256(hex: vector.msg_hash),
                privateKey: try UInt256(hex: vector.private_key),
                seed: seed
            )
            #expect(k.hexString == vector.k, "\(vector.msg_hash)")
        }
    }

    @Test func signatures() throws {
        #expect(Vectors.all.ecdsa_sign.count >= 20)
        for vector in Vectors.all.ecdsa_sign {
            let key = try StarkPrivateKey(hex: Secret(vector.private_key))
            let hash = try felt(vector.msg_hash)
            if let k = vector.k_seed_none {
                #expect(RFC6979.generateK(hash: hash.value, privateKey: key.scalar, seed: nil).hexString == k)
            }
            let signature = try StarkECDSA.sign(hash, with: key)
            #expect(signature.r.hexString == vector.r, "\(vector.name)")
            #expect(signature.s.hexString == vector.s, "\(vector.name)")
            #expect(StarkECDSA.verify(publicKey: key.publicKey, hash: hash, signature: signature))
        }
    }

    @Test func verification() throws {
        for vector in Vectors.all.ecdsa_verify {
            let signature = StarkSignature(r: try felt(vector.r), s: try felt(vector.s))
            let valid = StarkECDSA.verify(
                publicKey: try felt(vector.public_key),
                hash: try felt(vector.msg_hash),
                signature: signature
            )
            #expect(valid == vector.valid, "\(vector.name)")
        }
    }

    @Test func keccak() throws {
        for vector in Vectors.all.keccak256 {
            #expect(
                try UInt256(bigEndianBytes: Keccak256.hash(bytes(hex: vector.data_hex))).paddedHexString.hasSuffix(
                    String(vector.hash.dropFirst(2))
                )
            )
        }
        for vector in Vectors.all.starknet_keccak {
            #expect(StarknetKeccak.hash(bytes(hex: vector.data_hex)).hexString == vector.hash)
        }
        for vector in Vectors.all.selector {
            #expect(
                StarknetKeccak.selector(vector.function_name).hexString == vector.selector,
                "\(vector.function_name)"
            )
        }
    }

    @Test func invokeV3TransactionHashes() throws {
        let raw = try Vectors.rawInvokeTransactions()
        #expect(raw.count >= 3)
        for object in raw {
            let data = try JSONSerialization.data(withJSONObject: object)
            let transaction = try JSONDecoder().decode(InvokeTransactionV3.self, from: data)
            let chain = StarknetChainID(try felt(object["chain_id"] as? String ?? ""))
            #expect(try transaction.hash(chainID: chain).hexString == object["hash"] as? String)
        }
    }

    @Test func feeFieldPacking() throws {
        for vector in Vectors.all.tx_fee_field {
            func bounds(_ pair: [String]) throws -> ResourceBounds {
                ResourceBounds(maxAmount: try felt(pair[0]), maxPricePerUnit: try felt(pair[1]))
            }
            let packed = [
                try InvokeTransactionV3.pack(try bounds(vector.l1_gas), name: "L1_GAS"),
                try InvokeTransactionV3.pack(try bounds(vector.l2_gas), name: "L2_GAS"),
                try InvokeTransactionV3.pack(try bounds(vector.l1_data_gas), name: "L1_DATA"),
            ]
            #expect(Poseidon.hash(many: [try felt(vector.tip)] + packed).hexString == vector.hash)
        }
    }

    @Test func snip12Revision1() throws {
        #expect(Vectors.all.snip12_rev1.count >= 8)
        for vector in Vectors.all.snip12_rev1 {
            let data = vector.typed_data
            #expect(try data.revision() == .active)
            if let encoded = vector.encoded_primary_type {
                #expect(try data.encodeType(data.primaryType) == encoded, "\(vector.name)")
            }
            if let typeHash = vector.primary_type_hash {
                #expect(try data.typeHash(data.primaryType).hexString == typeHash, "\(vector.name)")
            }
            #expect(
                try data.messageHash(account: try felt(vector.account)).hexString == vector.message_hash,
                "\(vector.name)"
            )
        }
    }
}
