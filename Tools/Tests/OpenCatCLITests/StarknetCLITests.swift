import ArgumentParser
import Foundation
import StarknetCrypto
import Testing

@testable import opencat

/// `opencat starknet …` and `opencat chippipay quote`, run as a person runs them: 0x-prefixed lowercase hex out,
/// exit 0 / 2 for verify, 64 with a reason for bad input, never a trap; no private key printed.
struct StarknetCLITests {
    func run(_ arguments: [String]) async throws -> OpenCatCLI.Result {
        let result = try await OpenCatCLI.run(arguments)
        #expect(!result.trapped)
        return result
    }

    @Test func hashesAndSelectors() async throws {
        #expect(
            try await run([
                "starknet", "pedersen", "0x3d937c035c878245caf64531a5756109c53068da139362728feb561405371cb",
                "0x208a0a10250e382e1e4bbe2880906c2791bf6275695e02fbbc6aeff9cd8b31a",
            ]).standardOutput
                == "0x30e480bed5fe53fa909cc0f8c4d99b8f9f2c016be4c41e13a4848797979c662\n"
        )
        #expect(
            try await run(["starknet", "poseidon", "1", "2"]).standardOutput
                == "0x5d44a3decb2b2e0cc71071f7b802f45dd792d064f0fc7316c46514f70f9891a\n"
        )
        #expect(
            try await run(["starknet", "poseidon", "1"]).standardOutput
                == "0x6d226d4c804cd74567f5ac59c6a4af1fe2a6eced19fb7560a9124579877da25\n"
        )
        #expect(
            try await run(["starknet", "poseidon", "1", "2", "3"]).standardOutput
                == "0x2f0d8840bcf3bc629598d8a6cc80cb7c0d9e52d93dab244bbf9cd0dca0ad082\n"
        )
        #expect(
            try await run(["starknet", "selector", "transfer"]).standardOutput
                == "0x83afd3f4caedc6eebf44246fe54e38c95e3179a5ec9ea81740eca5b482d12e\n"
        )
    }

    @Test func keysSignaturesAndVerification() async throws {
        let scratch = try ScratchFolder()
        let keyFile = try scratch.write("key.txt", Data("0x1234567890987654321\n".utf8))
        let publicKey = try await run(["starknet", "public-key", "--private-key-file", keyFile])
        #expect(publicKey.standardOutput == "0x20c29f1c98f3320d56f01c13372c923123c35828bce54f2153aa1cfe61c44f2\n")
        let signed = try await run(["starknet", "sign", "--private-key-file", keyFile, "--hash", "0x2"])
        let lines = signed.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "0x4cd6594e5da1d50679077898a8d5e872eb4aa8e3902c9f9740ee8d6f8568015",
                "0x4d0918f14a93ad0ce66e66e2ff207164de57f147b387bc4015dc38ec97d555a",
            ]
        )
        #expect(!(signed.standardOutput + signed.standardError).contains("1234567890987654321"))
        let verify = [
            "starknet", "verify", "--public-key", "0x20c29f1c98f3320d56f01c13372c923123c35828bce54f2153aa1cfe61c44f2",
        ]
        #expect(try await run(verify + ["--hash", "0x2", "--r", lines[0], "--s", lines[1]]).status == 0)
        #expect(try await run(verify + ["--hash", "0x3", "--r", lines[0], "--s", lines[1]]).status == 2)
    }

    @Test func badInputIsAUsageErrorWithItsReason() async throws {
        let scratch = try ScratchFolder()
        let zero = try scratch.write("zero.txt", Data("0x0".utf8))
        for arguments in [
            ["starknet", "pedersen", "0xnothex", "1"],
            ["starknet", "pedersen", "0x800000000000011000000000000000000000000000000000000000000000001", "1"],
            ["starknet", "public-key", "--private-key-file", zero],
            ["starknet", "sign", "--private-key-file", zero, "--hash", "1"],
            ["chippipay", "quote", "--amount", "5O", "--rate", "20"],
            ["chippipay", "quote", "--amount", "50", "--rate", "0"],
        ] {
            let result = try await run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError.contains("Error:"), "\(arguments)")
        }
    }

    @Test func invokeV3TransactionHashFromAJSONRPCFile() async throws {
        let transaction = """
            {"sender_address": "0x745d525a3582e91299d8d7c71730ffc4b1f191f5b219d800334bc0edad0983b",
             "calldata": ["0x2", "0x4138fd51f90d171df37e9d4419c8cdb67d525840c58f8a5c347be93a1c5277d",
               "0xb17d8a2731ba7ca1816631e6be14f0fc1b8390422d649fa27f0fbb0c91eea8", "0x0",
               "0x28c62efb55444e72ba017fd975177c3960fc62a1c213713691dff28c0a81424",
               "0x27a4a7332e590dd789019a6d125ff2aacd358e453090978cbf81f0d85e4c045", "0x2", "0x344",
               "0x388dfafef49d69f534cd3cca247e589049657d08b6442725053da1d992635ba"],
             "nonce": "0x28de", "version": "0x3",
             "resource_bounds": {"l1_gas": {"max_amount": "0x186a0", "max_price_per_unit": "0x2d79883d20000"},
               "l2_gas": {"max_amount": "0x5f5e100", "max_price_per_unit": "0xba43b7400"},
               "l1_data_gas": {"max_amount": "0x186a0", "max_price_per_unit": "0x2d79883d20000"}},
             "tip": "0x0", "paymaster_data": [], "account_deployment_data": [],
             "nonce_data_availability_mode": "L1", "fee_data_availability_mode": "L1", "chain_id": "SN_SEPOLIA"}
            """
        let scratch = try ScratchFolder()
        let file = try scratch.write("tx.json", Data(transaction.utf8))
        // Sepolia transaction 0x53a6…f817 (starknet-rs test data, starknet 0.13.4).
        #expect(
            try await run(["starknet", "tx-hash", "--invoke-v3", file]).standardOutput
                == "0x53a60988dcb176eec0c6a8740030e30848de7ce49d91b76b7e5204dd872f817\n"
        )
        let broken = try scratch.write(
            "broken.json",
            Data(transaction.replacingOccurrences(of: "\"nonce\": \"0x28de\",", with: "").utf8)
        )
        let result = try await run(["starknet", "tx-hash", "--invoke-v3", broken])
        #expect(result.status == 64 && result.standardError.contains("nonce"))
    }

    @Test func quotesAreExact() async throws {
        let result = try await run(["chippipay", "quote", "--amount", "50", "--currency", "MXN", "--rate", "20"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("2.5 STRK\n2500000000000000000 base units (18 decimals)\n"))
    }

    @Test func poseidonManyOfNoValuesIsTheHashOfTheEmptyArray() async throws {
        let result = try await run(["starknet", "poseidon", "--many"])
        #expect(result.status == 0)
        // poseidon_hash_many([]) pads to [1, 0] and permutes once (starknet-crypto's value).
        #expect(result.standardOutput == "0x2272be0f580fd156823304800919530eaa97430e972d7213ee13f4fbf7a5dbc\n")
        #expect(
            Poseidon.hash(many: []).hexString == "0x2272be0f580fd156823304800919530eaa97430e972d7213ee13f4fbf7a5dbc"
        )
        #expect(try StarknetPoseidon.parse(["--many"]).values.isEmpty)
    }

    @Test func poseidonWithoutValuesOrManyIsAUsageError() async throws {
        let error = try #require(throws: (any Error).self) { try StarknetPoseidon.parse([]) }
        #expect(StarknetPoseidon.exitCode(for: error) == .validationFailure)
        #expect(StarknetPoseidon.message(for: error).contains("at least one felt"))
        #expect(try await run(["starknet", "poseidon"]).status == 64)
    }

    /// Quotients whose numerator passes 256 bits when multiplied out first, and inputs past `Decimal`'s 38 digits.
    @Test(arguments: [
        // 38 digits at a rate of 31 fractional digits: a · 10^49 is past 2^256, the quotient is not.
        (
            "99999999999999999999999999999999999999", "1.000000000000000000000000000001",
            "99999999999999999999999999999899999999000000000000000001", true
        ),
        // 55 significant digits.
        (
            "1234567890123456789012345678901234567890123456789012345", "0.5",
            "2469135780246913578024691357802469135780246913578024690000000000000000000", false
        ),
        (
            "1234567890123456789012345678901234567890123456789012345", "3",
            "411522630041152263004115226300411522630041152263004115000000000000000000", false
        ),
        // A tiny amount at a huge rate: rate · 10^112 is past 2^256, so the quotient is 0, rounded up to 1.
        ("0.\(String(repeating: "0", count: 59))1", "1\(String(repeating: "0", count: 70))", "1", true),
        // Trailing zeros are not significant: 81 digits, one of them significant.
        (
            "1\(String(repeating: "0", count: 80))", "1\(String(repeating: "0", count: 75))",
            "100000000000000000000000", false
        ),
    ])
    func quotesThatFitAreGivenExactly(amount: String, rate: String, baseUnits: String, roundedUp: Bool) async throws {
        let result = try await run(["chippipay", "quote", "--amount", amount, "--rate", rate])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(lines[1] == "\(baseUnits) base units (18 decimals)")
        #expect(lines[3].hasSuffix(roundedUp ? ", rounded up to the next base unit" : ", exact"))
        let (quoted, wasRoundedUp) = try Quote.tokenAmount(paying: amount, at: rate)
        #expect(quoted.baseUnits.decimalString == baseUnits && wasRoundedUp == roundedUp)
    }

    @Test func quotesPast256BitsAndInputsPast77SignificantDigitsAreRefusedPrecisely() async throws {
        let tooLarge = try #require(throws: StarknetCryptoError.self) {
            try Quote.tokenAmount(paying: String(repeating: "9", count: 77), at: "0.000001")
        }
        #expect(tooLarge.code == .invalidNumber && tooLarge.reason.contains("exceeds 256 bits"))
        let cli = try await run([
            "chippipay", "quote", "--amount", String(repeating: "9", count: 77), "--rate", "0.000001",
        ])
        #expect(cli.status == 64 && cli.standardError.contains("exceeds 256 bits"))

        let digits78 = "1\(String(repeating: "2", count: 76))3"
        let error = try #require(throws: (any Error).self) {
            try ChippiPayQuote.parse(["--amount", digits78, "--rate", "1"])
        }
        #expect(ChippiPayQuote.exitCode(for: error) == .validationFailure)
        #expect(
            ChippiPayQuote.message(for: error).contains("--amount: \(digits78) has 78 significant digits; at most 77")
        )
        let notPlain = try #require(throws: (any Error).self) {
            try ChippiPayQuote.parse(["--amount", "1", "--rate", "2e3"])
        }
        #expect(ChippiPayQuote.message(for: notPlain).contains("--rate: 2e3 is not a plain decimal number"))
        let help = try await run(["chippipay", "quote", "--help"]).standardOutput
        #expect(
            help.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("at most 77 significant digits")
        )
    }
}
