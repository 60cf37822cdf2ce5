import OpenCatCore
import StarknetCrypto

// What the wallet's key agrees to sign: only outside executions (SNIP-9) carrying the calls asked for (sponsored
// execution) or the account's activation (wallet creation).
extension ChippiWalletManager {
    /// The calls an outside execution (SNIP-9, revision 0 or 1) asks to sign: contract, selector, calldata.
    /// Typed data of another kind is refused: the key signs nothing else ChippiPay prepares.
    static func signedCalls(in typedData: TypedData) throws(ChippiPayError)
        -> [(to: Felt?, selector: Felt?, calldata: [Felt?])]
    {
        guard typedData.primaryType == "OutsideExecution",
            case .string(let domain)? = typedData.domain["name"], domain == "Account.execute_from_outside"
        else {
            throw ChippiPayError(.unexpectedCalls, "the prepared typed data is not an outside execution")
        }
        guard case .array(let signed)? = typedData.message["Calls"] ?? typedData.message["calls"] else {
            throw ChippiPayError(.malformedResponse, "the prepared typed data lists no calls")
        }
        func felt(_ value: TypedDataValue?) -> Felt? {
            switch value {
            case .string(let text)?: (try? Felt(parsing: text)) ?? (try? Felt(shortString: text))
            case .number(let text)?: try? Felt(parsing: text)
            default: nil
            }
        }
        var calls: [(to: Felt?, selector: Felt?, calldata: [Felt?])] = []
        for value in signed {
            guard case .object(let fields) = value else {
                throw ChippiPayError(.malformedResponse, "a prepared call is not an object")
            }
            let selectorValue = fields["Selector"] ?? fields["selector"]
            var selector = felt(selectorValue)
            if case .string(let name)? = selectorValue, !name.hasPrefix("0x") {
                selector = StarknetKeccak.selector(name)
            }
            var calldata: [Felt?] = []
            if case .array(let items)? = fields["Calldata"] ?? fields["calldata"] { calldata = items.map { felt($0) } }
            calls.append((felt(fields["To"] ?? fields["to"]), selector, calldata))
        }
        return calls
    }

    /// Refuses to sign an outside execution whose calls are not the ones asked for: a server that answers other
    /// calls (another recipient, another amount) gets no signature.
    static func checkCalls(in typedData: TypedData, match calls: [ChippiCall]) throws(ChippiPayError) {
        let signed = try signedCalls(in: typedData)
        guard signed.count == calls.count else {
            throw ChippiPayError(.unexpectedCalls, "the prepared typed data does not carry the requested calls")
        }
        for (value, call) in zip(signed, calls) {
            guard value.to == (try? Felt(hex: call.contractAddress)),
                value.selector == StarknetKeccak.selector(call.entrypoint),
                value.calldata == call.calldata.map({ try? Felt(parsing: $0) })
            else {
                throw ChippiPayError(.unexpectedCalls, "the prepared typed data does not carry the requested calls")
            }
        }
    }

    /// Refuses to let a new wallet's key sign a creation answer that carries any call but the allowed activation
    /// calls: deploying the account needs no transfer, approval or other call.
    static func checkCreationCalls(in typedData: TypedData, allowed: [AllowedCreationCall]) throws(ChippiPayError) {
        for call in try signedCalls(in: typedData) {
            guard
                allowed.contains(where: {
                    call.to == $0.contractAddress && call.selector == StarknetKeccak.selector($0.entrypoint)
                })
            else {
                throw ChippiPayError(
                    .unexpectedCalls,
                    "the wallet-creation typed data asks the new key to sign a call other than the account's activation"
                )
            }
        }
    }
}
