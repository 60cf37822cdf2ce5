import Foundation
public import OpenCatCore
public import OpenCatStorage
public import StarknetCrypto

/// The wallet as stored on the device: ids, the address, and the private key sealed (inside the cache, which is
/// itself sealed with AES-GCM). The key in clear is never stored and never sent.
///
/// Since seal version 2 (``seal`` set) the key is sealed with a key derived by scrypt from the user's PIN and a
/// random device key kept only in this device's cache (``WalletKeySeal``). A record without ``seal`` is a
/// version-1 wallet, sealed with the PIN alone; it still opens, and is re-sealed under version 2 the next time the
/// PIN opens it.
public struct StoredChippiWallet: Sendable, Hashable, Codable {
    /// ChippiPay's id of the wallet, once ChippiPay has created it.
    public var walletID: String?
    /// The app's own id of the user.
    public var externalUserId: String
    /// The account contract's address, computed here from the public key.
    public var address: Felt
    /// The Stark public key (the x coordinate) the account checks signatures with.
    public var publicKey: Felt
    /// The account contract's kind, as ChippiPay names it (`CHIPI`).
    public var walletType: String
    /// The account contract's class hash.
    public var classHash: Felt
    /// The private key in the CryptoJS/OpenSSL `Salted__` format of ChippiPay's `encryptedPrivateKey` field
    /// (``PassphraseSeal``). Version 2: sealed with the passphrase ``WalletKeySeal`` derives from the PIN and the
    /// device key, never with the PIN itself. Version 1 (``seal`` is `nil`): sealed with the PIN. After a version-1
    /// wallet is re-sealed here, ChippiPay still holds the version-1 blob it received at creation.
    public var encryptedPrivateKey: String
    /// Whether ChippiPay confirmed the creation.
    public var isCreated: Bool
    /// How the key is sealed (version 2: scrypt over the PIN and the device key, parameters, salt, and the
    /// device's AES-GCM copy of the key); `nil` for a version-1 wallet sealed with the PIN alone.
    public var seal: WalletKeySeal?
}

/// Gasless ChippiPay wallets as ChipiPay creates and uses them: the key is generated here, the account address
/// computed here, ChippiPay's SNIP-12 typed data (revision 1) checked, hashed and signed here; only the sealed key
/// and signatures leave the device. The key is sealed with the user's PIN and a device key that never leaves this
/// device (``WalletKeySeal``), so the copy ChippiPay keeps cannot be opened by searching PINs.
public struct ChippiWalletManager: Sendable {
    /// The ChippiPay API client that creates the wallet and relays its signed transactions.
    public var client: ChippiPayClient
    /// The encrypted cache the wallet records are kept in.
    public var cache: EncryptedCache
    /// scrypt's parameters for wallets sealed from now on (each wallet keeps its own in ``StoredChippiWallet/seal``).
    public var sealParameters: ScryptParameters
    /// The calls a wallet-creation answer may carry besides none (``chipiActivationCalls`` by default). Anything
    /// else (a `transfer`, an `approve`, …) is refused with ``ChippiPayError/Code/unexpectedCalls``.
    public var allowedCreationCalls: [AllowedCreationCall]

    /// ChipiPay's CHIPI account class (constructor `[public_key]`).
    public static let chipiAccountClassHash =
        (try? Felt(hex: "0x053f4f8791ed5bed0fddaa553d180c664e32cfaf8316bb232ae77bb08f459f2a")) ?? .zero
    /// The account class ChipiPay's paymaster expects in prepare-typed-data.
    public static let paymasterAccountClassHash =
        (try? Felt(hex: "0x036078334509b514626504edc9fb252328d1a240e4e948bef8d0c08dff45927f")) ?? .zero
    /// The activation calls ChipiPay's SDKs have the new account sign when it is deployed through the paymaster:
    /// `set_greeting` and `get_counter` on ChipiPay's demo contracts, which hold no funds.
    public static let chipiActivationCalls: [AllowedCreationCall] = [
        (try? Felt(hex: "0x0425fe282af8a0fce7478e06d21295fe85e57447f4f5127f80a04ef2eb6291fd"))
            .map { AllowedCreationCall(contractAddress: $0, entrypoint: "set_greeting") },
        (try? Felt(hex: "0x05039371eb9f5725bb3012934b8821ff3eb3b48cbdee3a29f798c17e9a641544"))
            .map { AllowedCreationCall(contractAddress: $0, entrypoint: "get_counter") },
    ].compactMap { $0 }

    /// A manager.
    /// - Parameters:
    ///   - sealParameters: scrypt's cost for new seals (``ScryptParameters/phone`` unless a test needs it cheap).
    ///   - allowedCreationCalls: the calls a wallet-creation answer may carry besides none.
    public init(
        client: ChippiPayClient,
        cache: EncryptedCache,
        sealParameters: ScryptParameters = .phone,
        allowedCreationCalls: [AllowedCreationCall] = chipiActivationCalls
    ) {
        self.client = client
        self.cache = cache
        self.sealParameters = sealParameters
        self.allowedCreationCalls = allowedCreationCalls
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

    /// Where the device key of one seal is kept: one slot per seal (its random salt names it), so a seal never
    /// meets another seal's device key, even when two unlocks or creations race.
    static func deviceKeySlot(_ externalUserId: String, seal: WalletKeySeal) -> String {
        "chippipay.wallet-device-key.\(externalUserId).\(seal.salt.base64EncodedString())"
    }

    /// The device key of a version-2 wallet.
    func deviceKey(of wallet: StoredChippiWallet, seal: WalletKeySeal) throws(ChippiPayError) -> WalletDeviceKey {
        let slot = Self.deviceKeySlot(wallet.externalUserId, seal: seal)
        let stored: WalletDeviceKey?
        do { stored = try cache.existingValue(WalletDeviceKey.self, forKey: slot) } catch {
            throw ChippiPayError(.storage, "the wallet's device key cannot be read")
        }
        guard let stored else {
            throw ChippiPayError(.storage, "this device does not hold the wallet's device key")
        }
        return stored
    }

    /// Seals `key` for `wallet` under a new device key (stored first) and the current seal version. The wallet
    /// record itself is not stored here.
    func sealed(_ wallet: StoredChippiWallet, key: StarkPrivateKey, pin: Secret<String>) throws(ChippiPayError)
        -> StoredChippiWallet
    {
        let deviceKey = WalletDeviceKey.generate()
        let (seal, encryptedPrivateKey) = try WalletKeySeal.seal(
            key,
            pin: pin,
            deviceKey: deviceKey.symmetricKey,
            address: wallet.address,
            parameters: sealParameters
        )
        do { try cache.setValue(deviceKey, forKey: Self.deviceKeySlot(wallet.externalUserId, seal: seal)) } catch {
            throw ChippiPayError(.storage, "the wallet's device key cannot be stored")
        }
        var wallet = wallet
        wallet.seal = seal
        wallet.encryptedPrivateKey = encryptedPrivateKey
        return wallet
    }

    /// Creates the user's gasless wallet, or finishes a creation that stopped half-way (the same key is reused:
    /// it is stored, sealed, before it signs anything).
    ///
    /// ChippiPay's prepared typed data is checked before the new key signs it: it must be a SNIP-9 outside
    /// execution whose calls are none or only ``allowedCreationCalls``. Anything else is refused with
    /// ``ChippiPayError/Code/unexpectedCalls``: nothing is signed, sent or stored.
    public func createWallet(externalUserId: String, pin: Secret<String>) async throws(ChippiPayError)
        -> StoredChippiWallet
    {
        var wallet: StoredChippiWallet
        let key: StarkPrivateKey
        let isNew: Bool
        if let stored = try storedWallet(externalUserId: externalUserId) {
            if stored.isCreated { return stored }
            let unlocked = try unlock(stored, pin: pin)
            key = unlocked.key
            wallet = unlocked.wallet
            isNew = false
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
            guard !pin.revealed.isEmpty else { throw ChippiPayError(.invalidInput, "a PIN is required") }
            key = StarkPrivateKey.generate()
            wallet = Self.newWallet(externalUserId: externalUserId, publicKey: key.publicKey)
            isNew = true
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
        try Self.checkCreationCalls(in: prepared.typedData, allowed: allowedCreationCalls)
        if isNew {
            // Stored, sealed, before the key signs anything, so a resumed creation uses the same key.
            wallet = try sealed(wallet, key: key, pin: pin)
            try store(wallet)
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

    /// A new CHIPI account for a key: its address is the contract address the key's public half deploys to.
    static func newWallet(externalUserId: String, publicKey: Felt) -> StoredChippiWallet {
        let classHash = chipiAccountClassHash
        return StoredChippiWallet(
            walletID: nil,
            externalUserId: externalUserId,
            address: ContractAddress.compute(salt: publicKey, classHash: classHash, constructorCalldata: [publicKey]),
            publicKey: publicKey,
            walletType: "CHIPI",
            classHash: classHash,
            encryptedPrivateKey: "",
            isCreated: false,
            seal: nil
        )
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
        let (key, _) = try unlock(wallet, pin: pin)
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

    /// Opens a wallet's key with the PIN (and, for version 2, the device key), and checks it is the wallet's key.
    /// A version-1 wallet (sealed with the PIN alone) is re-sealed under the current version and stored: the
    /// returned record is the one now stored.
    func unlock(_ wallet: StoredChippiWallet, pin: Secret<String>) throws(ChippiPayError)
        -> (key: StarkPrivateKey, wallet: StoredChippiWallet)
    {
        let hex: Secret<String>
        if let seal = wallet.seal {
            let deviceKey = try deviceKey(of: wallet, seal: seal)
            hex = try seal.open(pin: pin, deviceKey: deviceKey.symmetricKey, address: wallet.address)
        } else {
            hex = try PassphraseSeal.open(wallet.encryptedPrivateKey, passphrase: pin)
        }
        let key: StarkPrivateKey
        do { key = try StarkPrivateKey(hex: hex) } catch {
            throw ChippiPayError(.invalidInput, "the PIN does not open the wallet's key")
        }
        guard key.publicKey == wallet.publicKey else {
            throw ChippiPayError(.invalidInput, "the PIN does not open the wallet's key")
        }
        guard wallet.seal == nil else { return (key, wallet) }
        let upgraded = try sealed(wallet, key: key, pin: pin)
        try store(upgraded)
        return (key, upgraded)
    }
}
