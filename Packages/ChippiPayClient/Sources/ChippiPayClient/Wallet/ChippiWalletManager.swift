import Foundation
public import OpenCat
public import OpenCatCore
public import StarknetCrypto

/// The wallet as stored on the device: ids, the address, and the private key sealed with the user's PIN (inside
/// the cache, which is itself sealed with AES-GCM). The key in clear is never stored and never sent.
public struct StoredChippiWallet: Sendable, Hashable, Codable {
    public var walletID: String?
    public var externalUserId: String
    public var address: Felt
    public var publicKey: Felt
    public var walletType: String
    public var classHash: Felt
    /// The private key sealed with the PIN (``PassphraseSeal``), as ChippiPay also keeps it.
    public var encryptedPrivateKey: String
    /// Whether ChippiPay confirmed the creation.
    public var isCreated: Bool
}

/// Gasless ChippiPay wallets as ChipiPay creates and uses them: the key is generated here, the account address
/// computed here, ChippiPay's SNIP-12 typed data (revision 1) hashed and signed here; only the PIN-sealed key and
/// signatures leave the device.
public struct ChippiWalletManager: Sendable {
    public var client: ChippiPayClient
    public var cache: EncryptedCache

    /// ChipiPay's CHIPI account class (constructor `[public_key]`).
    public static let chipiAccountClassHash =
        (try? Felt(hex: "0x053f4f8791ed5bed0fddaa553d180c664e32cfaf8316bb232ae77bb08f459f2a")) ?? .zero
    /// The account class ChipiPay's paymaster expects in prepare-typed-data.
    public static let paymasterAccountClassHash =
        (try? Felt(hex: "0x036078334509b514626504edc9fb252328d1a240e4e948bef8d0c08dff45927f")) ?? .zero

    /// A manager.
    public init(client: ChippiPayClient, cache: EncryptedCache) {
        self.client = client
        self.cache = cache
    }

    static func key(_ externalUserId: String) -> String { "chippipay.wallet.\(externalUserId)" }

    /// The stored wallet of a user.
    public func storedWallet(externalUserId: String) throws(ChippiPayError) -> StoredChippiWallet? {
        do { return try cache.existingValue(StoredChippiWallet.self, forKey: Self.key(externalUserId)) } catch {
            throw ChippiPayError(.storage, "the wallet record cannot be read")
        }
    }

    func store(_ wallet: StoredChippiWallet) throws(ChippiPayError) {
        do { try cache.setValue(wallet, forKey: Self.key(wallet.externalUserId)) } catch {
            throw ChippiPayError(.storage, "the wallet record cannot be stored")
        }
    }

    /// Creates the user's gasless wallet, or finishes a creation that stopped half-way (the same key is reused:
    /// it is stored, sealed, before ChippiPay sees anything that depends on it).
    public func createWallet(externalUserId: String, pin: Secret<String>) async throws(ChippiPayError)
        -> StoredChippiWallet
    {
        var wallet: StoredChippiWallet
        let key: StarkPrivateKey
        if let stored = try storedWallet(externalUserId: externalUserId) {
            if stored.isCreated { return stored }
            wallet = stored
            key = try unseal(stored, pin: pin)
            // An earlier creation may have reached ChippiPay before its answer was lost.
            if let existing = try await client.wallet(externalUserId: externalUserId),
                (try? Felt(hex: existing.publicKey)) == wallet.address
            {
                wallet.walletID = existing.id
                wallet.isCreated = true
                try store(wallet)
                return wallet
            }
        } else {
            key = StarkPrivateKey.generate()
            let publicKey = key.publicKey
            let classHash = Self.chipiAccountClassHash
            wallet = StoredChippiWallet(
                walletID: nil,
                externalUserId: externalUserId,
                address: ContractAddress.compute(
                    salt: publicKey,
                    classHash: classHash,
                    constructorCalldata: [publicKey]
                ),
                publicKey: publicKey,
                walletType: "CHIPI",
                classHash: classHash,
                encryptedPrivateKey: try PassphraseSeal.seal(padded(key.secretHex), passphrase: pin),
                isCreated: false
            )
            try store(wallet)
        }
        let prepared = try await client.prepareWalletCreation(
            PrepareWalletCreationBody(
                publicKey: wallet.address.hexString,
                walletType: wallet.walletType,
                starkKeyPubAX: wallet.publicKey.hexString,
                classHash: wallet.classHash.hexString
            )
        )
        if let answered = prepared.accountClassHash, (try? Felt(hex: answered)) != wallet.classHash {
            throw ChippiPayError(.malformedResponse, "ChippiPay prepared the wallet for another account class")
        }
        let signature: StarkSignature
        do throws(StarknetCryptoError) {
            signature = try StarkECDSA.sign(try prepared.typedData.messageHash(account: wallet.address), with: key)
        } catch {
            throw ChippiPayError(.malformedResponse, "ChippiPay's typed data cannot be signed: \(error.reason)")
        }
        let created = try await client.createWallet(
            CreateWalletBody(
                externalUserId: externalUserId,
                publicKey: wallet.address.hexString,
                walletType: wallet.walletType,
                userSignature: UserSignature(signature),
                typedData: prepared.typedData,
                deploymentData: DeploymentData(
                    class_hash: wallet.classHash.hexString,
                    salt: wallet.publicKey.hexString,
                    unique: "0x0",
                    calldata: [wallet.publicKey.hexString]
                ),
                encryptedPrivateKey: wallet.encryptedPrivateKey
            ),
            idempotencyKey: "opencat.chippipay.wallet.\(externalUserId).\(wallet.address.hexString)"
        )
        wallet.walletID = created.id
        wallet.isCreated = true
        try store(wallet)
        return wallet
    }

    /// Runs `calls` from the user's wallet with ChippiPay paying the gas: prepare-typed-data, sign, execute.
    public func executeSponsored(
        externalUserId: String,
        pin: Secret<String>,
        calls: [ChippiCall],
        idempotencyKey: String
    )
        async throws(ChippiPayError) -> Felt
    {
        guard let wallet = try storedWallet(externalUserId: externalUserId), wallet.isCreated else {
            throw ChippiPayError(.walletNotFound, "create the wallet first")
        }
        let key = try unseal(wallet, pin: pin)
        let prepared = try await client.prepareTypedData(
            address: wallet.address,
            calls: calls,
            accountClassHash: Self.paymasterAccountClassHash
        )
        try Self.checkCalls(in: prepared.typedData, match: calls)
        let signature: StarkSignature
        do throws(StarknetCryptoError) {
            signature = try StarkECDSA.sign(try prepared.typedData.messageHash(account: wallet.address), with: key)
        } catch {
            throw ChippiPayError(.malformedResponse, "ChippiPay's typed data cannot be signed: \(error.reason)")
        }
        return try await client.executeSponsoredTransaction(
            address: wallet.address,
            typedData: prepared.typedData,
            signature: signature,
            walletType: prepared.walletType ?? wallet.walletType,
            idempotencyKey: idempotencyKey
        )
    }

    /// Refuses to sign an outside execution whose calls are not the ones asked for: a server that answers other
    /// calls (another recipient, another amount) gets no signature.
    static func checkCalls(in typedData: TypedData, match calls: [ChippiCall]) throws(ChippiPayError) {
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
        guard signed.count == calls.count else {
            throw ChippiPayError(.malformedResponse, "the prepared typed data does not carry the requested calls")
        }
        for (value, call) in zip(signed, calls) {
            guard case .object(let fields) = value else {
                throw ChippiPayError(.malformedResponse, "a prepared call is not an object")
            }
            let to = felt(fields["To"] ?? fields["to"])
            let selectorValue = fields["Selector"] ?? fields["selector"]
            var selector = felt(selectorValue)
            if case .string(let name)? = selectorValue, !name.hasPrefix("0x") {
                selector = StarknetKeccak.selector(name)
            }
            var calldata: [Felt?] = []
            if case .array(let items)? = fields["Calldata"] ?? fields["calldata"] { calldata = items.map { felt($0) } }
            guard to == (try? Felt(hex: call.contractAddress)), selector == StarknetKeccak.selector(call.entrypoint),
                calldata == call.calldata.map({ try? Felt(parsing: $0) })
            else {
                throw ChippiPayError(.malformedResponse, "the prepared typed data does not carry the requested calls")
            }
        }
    }

    func unseal(_ wallet: StoredChippiWallet, pin: Secret<String>) throws(ChippiPayError) -> StarkPrivateKey {
        let hex = try PassphraseSeal.open(wallet.encryptedPrivateKey, passphrase: pin)
        do { return try StarkPrivateKey(hex: hex) } catch {
            throw ChippiPayError(.invalidInput, "the sealed key is not a Stark private key")
        }
    }

    /// `0x` and 64 hex digits, as ChipiPay's SDK seals keys.
    func padded(_ hex: Secret<String>) -> Secret<String> {
        let digits = hex.revealed.hasPrefix("0x") ? String(hex.revealed.dropFirst(2)) : hex.revealed
        return Secret("0x" + String(repeating: "0", count: max(0, 64 - digits.count)) + digits)
    }
}
