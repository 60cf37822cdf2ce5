import Foundation
import KeyServerClient
import Testing

struct HumanKeyTests {
    /// Deterministic data values for a key (eleven 5-bit symbols).
    static func values(_ seed: Int) -> [UInt8] { (0..<11).map { UInt8((seed * 7 + $0 * 13) % 32) } }

    @Test func aMintedKeyRoundTripsInEverySpelling() throws {
        let key = HumanKey(dataValues: Self.values(3), plan: PlanLevel(level: 2)!)
        let text = key.description
        #expect(text.count == 22 && text.hasPrefix("VUUW-") && text.hasSuffix("-L2"))
        #expect(try HumanKey(text) == key)
        #expect(try HumanKey(text.lowercased()) == key)
        #expect(try HumanKey(text.replacingOccurrences(of: "-", with: "")) == key)
        #expect(try HumanKey(text.replacingOccurrences(of: "-", with: " ")).plan.level == 2)
    }

    @Test func crockfordAliasesReadAsTheirDigits() throws {
        // Data value 0 and 1 everywhere: O reads as 0, I and L as 1.
        let key = HumanKey(dataValues: [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0], plan: PlanLevel(level: 1)!)
        var aliased = Array(key.description)
        for (index, character) in aliased.enumerated() where index >= 5 && index < 19 {
            if character == "0" {
                aliased[index] = "O"
            } else if character == "1" {
                aliased[index] = index % 2 == 0 ? "I" : "l"
            }
        }
        #expect(try HumanKey(String(aliased)) == key)
    }

    @Test func theCheckSymbolIsCrockfordMod37OfTheElevenBefore() throws {
        // 11 symbols of value 31 ("Z"): (2^55 - 1) mod 37.
        let value = (UInt64(1) << 55) - 1
        let expected = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ*~$=U")[Int(value % 37)]
        let key = HumanKey(dataValues: Array(repeating: 31, count: 11), plan: PlanLevel(level: 9)!)
        #expect(key.check == expected)
        #expect(key.data == "ZZZZZZZZZZZ")
    }

    @Test func everySingleSymbolTypoAndAdjacentSwapIsCaught() throws {
        let key = HumanKey(dataValues: Self.values(5), plan: PlanLevel(level: 3)!)
        let body = Array(key.data) + [key.check]
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        func spelled(_ symbols: [Character]) -> String {
            "VUUW-\(String(symbols[0..<4]))-\(String(symbols[4..<8]))-\(String(symbols[8..<12]))-L3"
        }
        var caught = 0
        for position in 0..<11 {
            for replacement in alphabet where replacement != body[position] {
                var typo = body
                typo[position] = replacement
                #expect(throws: HumanKeyError.checkSymbolMismatch) { try HumanKey(spelled(typo)) }
                caught += 1
            }
        }
        for position in 0..<10 where body[position] != body[position + 1] {
            var swapped = body
            swapped.swapAt(position, position + 1)
            #expect(throws: HumanKeyError.self) { try HumanKey(spelled(swapped)) }
        }
        #expect(caught == 11 * 31)
    }

    @Test(arguments: [
        ("VUUW-ABCD-1234-WXY-L2", HumanKeyError.wrongLength),
        ("XUUW-ABCD-1234-WXYZ-L2", .wrongPrefix),
        ("VUUW-ABCD-12U4-WXYZ-L2", .invalidSymbol(position: 7)),
        ("VUUW-ABCD-1234-WXYZ-L0", .invalidPlan),
        ("VUUW-ABCD-1234-WXYZ-X2", .invalidPlan),
        ("", .wrongLength),
    ])
    func malformedKeysSayWhy(_ text: String, _ error: HumanKeyError) {
        #expect(throws: error) { try HumanKey(text) }
    }
}
