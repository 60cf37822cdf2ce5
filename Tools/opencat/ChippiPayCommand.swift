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

    @Option(name: .customLong("amount"), help: "The fiat price (a decimal number).") var amount: String
    @Option(name: .customLong("currency"), help: "The fiat currency.") var currency = "MXN"
    @Option(name: .customLong("rate"), help: "Fiat per whole token.") var rate: String
    @Option(name: .customLong("token"), help: "The token's symbol.") var token = "STRK"
    @Option(name: .customLong("decimals"), help: "The token's decimals.") var decimals: UInt8 = 18

    func run() throws {
        let locale = Locale(identifier: "en_US_POSIX")
        guard Self.isPlainDecimal(amount), let fiat = Decimal(string: amount, locale: locale) else {
            throw ValidationError("--amount: \(amount) is not a plain decimal number (digits, one optional point)")
        }
        guard Self.isPlainDecimal(rate), let perToken = Decimal(string: rate, locale: locale) else {
            throw ValidationError("--rate: \(rate) is not a plain decimal number (digits, one optional point)")
        }
        do {
            let quote = try Quote(
                fiatAmount: fiat,
                currency: currency,
                rate: perToken,
                token: token,
                decimals: decimals
            )
            print("\(quote.tokenAmount.formatted) \(token)")
            print("\(quote.tokenAmount.baseUnits.decimalString) base units (\(decimals) decimals)")
            print("u256 low \(quote.tokenAmount.u256[0].hexString) high \(quote.tokenAmount.u256[1].hexString)")
            print(
                "\(amount) \(currency) at \(rate) \(currency)/\(token)"
                    + (quote.roundedUp ? ", rounded up to the next base unit" : ", exact")
            )
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// Digits with at most one decimal point and at most 38 significant digits (what `Decimal` holds exactly).
    static func isPlainDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = parts.joined()
        return !parts[0].isEmpty && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
            && digits.drop { $0 == "0" }.count <= 38
    }
}
