import Foundation
import OpenCatCore
import Testing

@testable import StarknetCrypto

@Suite struct StarknetCryptoPropertyTests {
    @Test func signThenVerifyRoundTripsAndAnyFlippedBitFails() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let key = StarkPrivateKey.generate()
            let hash = try Felt(
                UInt256(w0: generator.next(), w1: generator.next(), w2: generator.next(), w3: generator.next() >> 6)
            )
            let signature = try StarkECDSA.sign(hash, with: key)
            #expect(StarkECDSA.verify(publicKey: key.publicKey, hash: hash, signature: signature))
            let bit = Int.random(in: 0..<250)
            let flippedHash = Felt(
                unchecked: hash.value.bit(bit) ? hash.value &- (UInt256.one << bit) : hash.value | (UInt256.one << bit)
            )
            #expect(!StarkECDSA.verify(publicKey: key.publicKey, hash: flippedHash, signature: signature))
            let flippedR = StarkSignature(
                r: Felt(unchecked: signature.r.value.bit(0) ? signature.r.value &- .one : signature.r.value | .one),
                s: signature.s
            )
            #expect(!StarkECDSA.verify(publicKey: key.publicKey, hash: hash, signature: flippedR))
            let flippedS = StarkSignature(
                r: signature.r,
                s: Felt(
                    unchecked: signature.s.value.bit(3)
                        ? signature.s.value &- UInt256(8) : signature.s.value | UInt256(8)
                )
            )
            #expect(!StarkECDSA.verify(publicKey: key.publicKey, hash: hash, signature: flippedS))
            #expect(
                !StarkECDSA.verify(publicKey: StarkPrivateKey.generate().publicKey, hash: hash, signature: signature)
            )
        }
    }

    @Test func badInputIsAClearError() throws {
        #expect(throws: StarknetCryptoError.self) { try Felt(hex: "0xnothex") }
        #expect(throws: StarknetCryptoError.self) { try Felt(hex: "") }
        #expect((try? Felt(hex: "0x800000000000011000000000000000000000000000000000000000000000001")) == nil)  // P
        #expect((try? Felt(hex: "0x800000000000011000000000000000000000000000000000000000000000000")) != nil)  // P − 1
        #expect(throws: StarknetCryptoError.self) { try Felt(hex: "0x1" + String(repeating: "0", count: 64)) }
        do {
            _ = try StarkPrivateKey(hex: Secret("0x0"))
            Issue.record("a zero private key was accepted")
        } catch {
            #expect(error.code == .invalidPrivateKey)
        }
        #expect(throws: StarknetCryptoError.self) { try StarkPrivateKey(hex: Secret(StarkCurve.order.hexString)) }
        #expect(throws: StarknetCryptoError.self) { try StarkPrivateKey(hex: Secret("0xzz")) }
        #expect(throws: StarknetCryptoError.self) { try Felt(shortString: String(repeating: "a", count: 32)) }
        let key = StarkPrivateKey.generate()
        #expect(throws: StarknetCryptoError.self) {
            try StarkECDSA.sign(Felt(unchecked: UInt256.one << 251), with: key)
        }
        // A public key off the curve verifies nothing.
        let offCurve = (UInt64(1)...64).first { StarkCurve.point(x: UInt256($0)) == nil }.map { Felt($0) }
        #expect(offCurve != nil)
        let genuine = try? StarkECDSA.sign(1, with: key)
        #expect(genuine != nil)
        if let offCurve, let genuine {
            #expect(!StarkECDSA.verify(publicKey: offCurve, hash: 1, signature: genuine))
        }
    }

    @Test func privateKeysNeverPrint() throws {
        let secret = "0x3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"
        let key = try StarkPrivateKey(hex: Secret(secret))
        for text in ["\(key)", String(reflecting: key), "\(key.secretHex)", "\([key])"] {
            #expect(!text.contains("3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"))
        }
        let error = try #require(throws: StarknetCryptoError.self) { try StarkPrivateKey(hex: Secret(secret + "zz")) }
        #expect(!error.description.contains("3c1e9550"))
    }

    @Test func integersParseAndPrintExactly() throws {
        let max = try UInt256(decimal: "115792089237316195423570985008687907853269984665640564039457584007913129639935")
        #expect(max == .max)
        #expect(max.hexString == "0x" + String(repeating: "f", count: 64))
        #expect(throws: UInt256ParseError.overflow) {
            try UInt256(decimal: "115792089237316195423570985008687907853269984665640564039457584007913129639936")
        }
        #expect(throws: UInt256ParseError.invalidDigit(offset: 1)) { try UInt256(decimal: "1x") }
        #expect(UInt256(1_000_000_000_000_000_000).decimalString == "1000000000000000000")
        let value = try UInt256(hex: "0x1234567890abcdef1234567890abcdef1234567890abcdef")
        #expect(try UInt256(decimal: value.decimalString) == value)
        #expect(value.adding(.max) == nil)
        #expect(UInt256.zero.subtracting(.one) == nil)
        #expect((UInt256.one << 200).multiplied(by: UInt256.one << 56) == nil)
        #expect(try UInt256(bigEndianBytes: value.bigEndianBytes) == value)
    }

    @Test func tokenAmountsAreExact() throws {
        let amount = try TokenAmount(parsing: "2.5", decimals: 18)
        #expect(amount.baseUnits.decimalString == "2500000000000000000")
        #expect(amount.formatted == "2.5")
        #expect(amount.u256.map(\.hexString) == ["0x22b1c8c1227a0000", "0x0"])
        #expect(throws: StarknetCryptoError.self) { try TokenAmount(parsing: "0.0000000000000000001", decimals: 18) }
        #expect(throws: StarknetCryptoError.self) { try TokenAmount(parsing: "-1", decimals: 18) }
        #expect(throws: StarknetCryptoError.self) { try TokenAmount(parsing: "1e3", decimals: 18) }
        let large = TokenAmount(baseUnits: (UInt256.one << 130) | UInt256(7), decimals: 18)
        #expect(large.u256.map(\.hexString) == ["0x7", "0x4"])
        #expect(try TokenAmount(u256: large.u256, decimals: 18) == large)
        #expect(try TokenAmount(Decimal(string: "50.25")!, decimals: 6).baseUnits == UInt256(50_250_000))
    }

    @Test func quotesRoundUpToTheNextBaseUnit() throws {
        let quote = try Quote(fiatAmount: 50, currency: "MXN", rate: 20)
        #expect(quote.tokenAmount.baseUnits.decimalString == "2500000000000000000")
        #expect(!quote.roundedUp)
        let third = try Quote(fiatAmount: 50, currency: "MXN", rate: 3)
        #expect(third.tokenAmount.baseUnits.decimalString == "16666666666666666667")
        #expect(third.roundedUp)
        let fractional = try Quote(
            fiatAmount: Decimal(string: "99.99")!,
            currency: "MXN",
            rate: Decimal(string: "18.75")!
        )
        // 99.99 / 18.75 = 5.33280 exactly.
        #expect(fractional.tokenAmount.formatted == "5.3328")
        #expect(throws: StarknetCryptoError.self) { try Quote(fiatAmount: 50, currency: "MXN", rate: 0) }
        #expect(throws: StarknetCryptoError.self) { try Quote(fiatAmount: -5, currency: "MXN", rate: 20) }
    }

    @Test func contractAddressesAsStarknetComputesThem() throws {
        // ChipiPay's CHIPI account: salt = public key, constructor calldata [public key], deployer 0.
        let publicKey = try Felt(hex: "0x20c29f1c98f3320d56f01c13372c923123c35828bce54f2153aa1cfe61c44f2")
        let address = ContractAddress.compute(
            salt: publicKey,
            classHash: try Felt(hex: "0x053f4f8791ed5bed0fddaa553d180c664e32cfaf8316bb232ae77bb08f459f2a"),
            constructorCalldata: [publicKey]
        )
        #expect(address.value < (UInt256.one << 251))
        #expect(address.hexString == ContractAddressVector.expected)
    }
}

/// Computed with starknet-py 0.30.0 `compute_address(salt=pub, class_hash=CHIPI, constructor_calldata=[pub])`.
enum ContractAddressVector {
    static let expected = "0x1cc4b0d5e5ee60aa131b310927f48c46be64a003b2d0a781ec711a776c9d17f"
}
