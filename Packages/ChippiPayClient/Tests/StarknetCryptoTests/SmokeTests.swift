import OpenCatCore
import Testing

@testable import StarknetCrypto

@Suite struct SmokeTests {
    @Test func keccakEmpty() throws {
        let value = try UInt256(bigEndianBytes: Keccak256.hash([UInt8]()))
        #expect(value.hexString == "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
    }

    @Test func pedersen() {
        #expect(Pedersen.hash(1, 2).hexString == "0x5bb9440e27889a364bcb678b1f679ecd1347acdedcbf36e83494f857cc58026")
    }

    @Test func poseidon() {
        #expect(Poseidon.hash(1, 2).hexString == "0x5d44a3decb2b2e0cc71071f7b802f45dd792d064f0fc7316c46514f70f9891a")
        #expect(Poseidon.hash(1).hexString == "0x6d226d4c804cd74567f5ac59c6a4af1fe2a6eced19fb7560a9124579877da25")
        #expect(Poseidon.hash(many: [1, 2, 3]).hexString == "0x2f0d8840bcf3bc629598d8a6cc80cb7c0d9e52d93dab244bbf9cd0dca0ad082")
    }
}

@Suite struct SignSmoke {
    @Test(arguments: [
        ("0x2", "0x4cd6594e5da1d50679077898a8d5e872eb4aa8e3902c9f9740ee8d6f8568015", "0x4d0918f14a93ad0ce66e66e2ff207164de57f147b387bc4015dc38ec97d555a"),
        ("0x1e542e2da71b3f5d7b4e9d329b4d30ac0b5d6f266ebef7364bf61c39aac35d0", "0x2352f9fc4fe3450c9e5579da9302637a7f6bba8c24836a9149217cc41d153b7", "0x7ac6f1d8edfb0daadc592e051e24ab5ce9ad7ab7033232f1129d66cdb8f0eda"),
        ("0x397e76d1667c4454bfb83514e120583af836f8e32a516765497823eabe16a3f", "0x292e4c702cf95aeded555ad3f9b7286f221064b868e6ef403ad391863835f7a", "0x58e7ee9f3e04d4f0325bf0bf328cfb503292e0de3cdf515a60ec55c3f377ab5"),
    ])
    func sign(hash: String, r: String, s: String) throws {
        let key = try StarkPrivateKey(hex: Secret("0x1234567890987654321"))
        #expect(key.publicKey.hexString == "0x20c29f1c98f3320d56f01c13372c923123c35828bce54f2153aa1cfe61c44f2")
        let signature = try StarkECDSA.sign(try Felt(hex: hash), with: key)
        #expect(signature.r.hexString == r)
        #expect(signature.s.hexString == s)
        #expect(StarkECDSA.verify(publicKey: key.publicKey, hash: try Felt(hex: hash), signature: signature))
        #expect(!StarkECDSA.verify(publicKey: key.publicKey, hash: Felt(5), signature: signature))
    }
}
