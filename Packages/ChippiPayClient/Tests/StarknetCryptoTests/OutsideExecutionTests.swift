import Foundation
import Testing

@testable import StarknetCrypto

/// SNIP-9 v2 outside execution, the typed data ChipiPay's paymaster prepares: the type hash is the constant SNIP-9
/// publishes; the message hash is starknet-py 0.30.0's for the same data and account.
struct OutsideExecutionTests {
    static let json = """
        {"types":{"StarknetDomain":[{"name":"name","type":"shortstring"},{"name":"version","type":"shortstring"},
          {"name":"chainId","type":"shortstring"},{"name":"revision","type":"shortstring"}],
          "OutsideExecution":[{"name":"Caller","type":"ContractAddress"},{"name":"Nonce","type":"felt"},
          {"name":"Execute After","type":"u128"},{"name":"Execute Before","type":"u128"},{"name":"Calls","type":"Call*"}],
          "Call":[{"name":"To","type":"ContractAddress"},{"name":"Selector","type":"selector"},
          {"name":"Calldata","type":"felt*"}]},
         "primaryType":"OutsideExecution",
         "domain":{"name":"Account.execute_from_outside","version":"2","chainId":"SN_MAIN","revision":"1"},
         "message":{"Caller":"0x414e595f43414c4c4552","Nonce":"0x1","Execute After":"0x1","Execute Before":"0x67b5c6e0",
          "Calls":[{"To":"0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d","Selector":"transfer",
          "Calldata":["0x1","0x2","0x0"]}]}}
        """

    @Test func hashesAsSNIP9AndStarknetPyDo() throws {
        let data = try JSONDecoder().decode(TypedData.self, from: Data(Self.json.utf8))
        #expect(
            try data.typeHash("OutsideExecution").hexString
                == "0x312b56c05a7965066ddbda31c016d8d05afc305071c0ca3cdc2192c3c2f1f0f"
        )
        #expect(
            try data.typeHash("StarknetDomain").hexString
                == "0x1ff2f602e42168014d405a94f75e8a93d640751d71d16311266e140d8b0a210"
        )
        let account = try Felt(hex: "0x1cc4b0d5e5ee60aa131b310927f48c46be64a003b2d0a781ec711a776c9d17f")
        #expect(
            try data.messageHash(account: account).hexString
                == "0x41ec3fcf93a7b830b68ee4041e9733f916fc9c50a814eee2a7d3acbbf169291"
        )
    }

    @Test func malformedTypedDataIsAClearError() throws {
        var data = try JSONDecoder().decode(TypedData.self, from: Data(Self.json.utf8))
        data.message["Nonce"] = nil
        #expect(throws: StarknetCryptoError.self) { try data.messageHash(account: 1) }
        data = try JSONDecoder().decode(TypedData.self, from: Data(Self.json.utf8))
        data.message["Execute Before"] = .string("0x" + String(repeating: "f", count: 40))  // beyond u128
        #expect(throws: StarknetCryptoError.self) { try data.messageHash(account: 1) }
        data = try JSONDecoder().decode(TypedData.self, from: Data(Self.json.utf8))
        data.domain["revision"] = .string("7")
        #expect(throws: StarknetCryptoError.self) { try data.messageHash(account: 1) }
        // A type that refers to itself cannot recurse without end.
        data = try JSONDecoder().decode(TypedData.self, from: Data(Self.json.utf8))
        data.types["Loop"] = [TypedDataField(name: "next", type: "Loop")]
        var nested: TypedDataValue = .object([:])
        for _ in 0..<200 { nested = .object(["next": nested]) }
        #expect(throws: StarknetCryptoError.self) { try data.structHash("Loop", ["next": nested]) }
    }
}

/// Typed data on the wire is unchanged by ``TypedDataValue`` being the kernel's `JSONValue`.
struct TypedDataWireTests {
    static let text = #"""
        {"types":{"StarknetDomain":[{"name":"revision","type":"shortstring"}]},"primaryType":"StarknetDomain",
        "domain":{"revision":"1"},"message":{"n":18446744073709551615,"m":-5,"s":"0x1"}}
        """#

    @Test func numbersBeyondSixtyFourBitsTravelAsStringsAndFractionsAreRefused() throws {
        var data = try JSONDecoder().decode(TypedData.self, from: Data(Self.text.utf8))
        #expect(data.message["n"] == .number("18446744073709551615") && data.message["m"] == .number("-5"))
        data.message["wide"] = .array([.number("340282366920938463463374607431768211455")])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(data), as: UTF8.self)
        #expect(json.contains(#""wide":["340282366920938463463374607431768211455"]"#))
        #expect(json.contains(#""m":-5"#) && json.contains(#""n":18446744073709551615"#))
        for bad in ["1.5", "18446744073709551616"] {
            let text = Self.text.replacingOccurrences(of: "-5", with: bad)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(TypedData.self, from: Data(text.utf8)) }
        }
    }
}
