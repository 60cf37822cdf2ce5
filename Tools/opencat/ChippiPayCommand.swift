import ArgumentParser
import Foundation
import StarknetCrypto

/// `opencat chippipay`: ChippiPay helpers.
struct ChippiPayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chippipay",
        abstract: "ChippiPay: exact quotes for services paid in tokens.",
        subcommands: [ChippiPayQuote.self]
    )
}

/// `opencat chippipay quote --amount 50 --currency MXN --rate 20`.
struct ChippiPayQuote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quote",
        abstract: "The exact token amount that pays a fiat price at a rate (fiat per token).",
        discussion: """
            Prints the amount (2.5 STRK), its base units (2500000000000000000 at 18 decimals) and its u256 calldata \
            (low, high). Exact decimal arithmetic; a quotient that does not divide exactly is rounded up to the next \
            base unit, so the service is always paid in full.
            """
    )

    @Option(name: .customLong("amount"), help: "The fiat price: \(Self.plainDecimalRule).") var amount: String
    @Option(name: .customLong("currency"), help: "The fiat currency.") var currency = "MXN"
    @Option(name: .customLong("rate"), help: "Fiat per whole token: \(Self.plainDecimalRule).") var rate: String
    @Option(name: .customLong("token"), help: "The token's symbol.") var token = "STRK"
    @Option(name: .customLong("decimals"), help: "The token's decimals (at most 77).") var decimals: UInt8 = 18

    /// What `--amount` and `--rate` accept, as `--help` says it.
    static let plainDecimalRule = "a plain decimal number (digits, one optional point), at most 77 significant digits"

    func validate() throws {
        try Self.checkPlainDecimal(amount, "--amount")
        try Self.checkPlainDecimal(rate, "--rate")
    }

    func run() throws {
        do {
            let (tokenAmount, roundedUp) = try Quote.tokenAmount(paying: amount, at: rate, decimals: decimals)
            print("\(tokenAmount.formatted) \(token)")
            print("\(tokenAmount.baseUnits.decimalString) base units (\(decimals) decimals)")
            print("u256 low \(tokenAmount.u256[0].hexString) high \(tokenAmount.u256[1].hexString)")
            print(
                "\(amount) \(currency) at \(rate) \(currency)/\(token)"
                    + (roundedUp ? ", rounded up to the next base unit" : ", exact")
            )
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// Refuses `text` unless it is digits with at most one decimal point (a digit on each side) and at most 77
    /// significant digits (from the first non-zero digit to the last non-zero one: `0.00125` has three, `1000` one).
    static func checkPlainDecimal(_ text: String, _ option: String) throws {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw ValidationError(
                "\(option): \(shown(text)) is not a plain decimal number (digits, one optional point)"
            )
        }
        let significant = parts.joined().drop { $0 == "0" }.reversed().drop { $0 == "0" }.count
        guard significant <= 77 else {
            throw ValidationError(
                "\(option): \(shown(text)) has \(significant) significant digits; at most 77 are accepted"
            )
        }
    }

    /// `text` as an error shows it: whole up to 80 characters, else its first 80 and an ellipsis.
    static func shown(_ text: String) -> String { text.count <= 80 ? text : "\(text.prefix(80))…" }
}
