public import StarknetCrypto

/// A ChippiPay wallet (`GET /chipi-wallets/by-user`, `POST /chipi-wallets`). `publicKey` is the account address.
public struct ChippiWallet: Sendable, Hashable, Codable, Identifiable {
    /// ChippiPay's id of the wallet.
    public var id: String
    /// The app's own id of the user the wallet belongs to.
    public var externalUserId: String?
    /// The account's address (ChippiPay calls it the public key).
    public var publicKey: String
    /// The private key sealed with the user's PIN (CryptoJS AES); never the key in clear.
    public var encryptedPrivateKey: String?
    /// The account contract's kind, as ChippiPay names it (`CHIPI` for the wallets this package creates).
    public var walletType: String?
    /// The chain the wallet lives on (`STARKNET`).
    public var chain: String?
    /// Whether the account contract is deployed on chain.
    public var isDeployed: Bool?
    /// The account contract's class hash, as `0x` hex.
    public var classHash: String?

    /// A wallet.
    public init(
        id: String,
        externalUserId: String? = nil,
        publicKey: String,
        encryptedPrivateKey: String? = nil,
        walletType: String? = nil,
        chain: String? = nil,
        isDeployed: Bool? = nil,
        classHash: String? = nil
    ) {
        self.id = id
        self.externalUserId = externalUserId
        self.publicKey = publicKey
        self.encryptedPrivateKey = encryptedPrivateKey
        self.walletType = walletType
        self.chain = chain
        self.isDeployed = isDeployed
        self.classHash = classHash
    }
}

/// `GET /chipi-wallets/token-balance`: a raw balance in the token's base units.
public struct TokenBalance: Sendable, Hashable, Codable {
    /// The chain (`STARKNET`).
    public var chain: String?
    /// The token's symbol (`STRK`).
    public var chainToken: String?
    /// The token contract's address, as `0x` hex.
    public var chainTokenAddress: String?
    /// The token's decimals (18 for STRK); `amount` is `nil` outside 0…77.
    public var decimals: Int
    /// Base units, as a decimal string.
    public var balance: String

    /// The balance as an exact amount.
    public var amount: TokenAmount? {
        guard (0...77).contains(decimals), let units = UInt256(balance) else { return nil }
        return TokenAmount(baseUnits: units, decimals: UInt8(decimals))
    }
}

/// A Starknet ECDSA signature as ChippiPay's API carries it: r and s in decimal, `recovery` 0.
public struct UserSignature: Sendable, Hashable, Codable {
    /// The signature's r, in decimal.
    public var r: String
    /// The signature's s, in decimal.
    public var s: String
    /// Always 0: Starknet's ECDSA needs no recovery id, the API asks for one.
    public var recovery: Int

    /// The wire form of a signature.
    public init(_ signature: StarkSignature) {
        r = signature.r.value.decimalString
        s = signature.s.value.decimalString
        recovery = 0
    }
}

/// A contract call as ChippiPay's transaction endpoints carry it.
public struct ChippiCall: Sendable, Hashable, Codable {
    /// The called contract's address, as `0x` hex.
    public var contractAddress: String
    /// The entry point's name (`transfer`), not its selector.
    public var entrypoint: String
    /// The arguments, each a felt in `0x` hex.
    public var calldata: [String]

    /// A call from Starknet values.
    public init(contractAddress: Felt, entrypoint: String, calldata: [Felt]) {
        self.contractAddress = contractAddress.hexString
        self.entrypoint = entrypoint
        self.calldata = calldata.map(\.hexString)
    }
}

/// `POST /chipi-wallets/prepare-creation`.
struct PrepareWalletCreationBody: Encodable {
    var publicKey: String
    var walletType: String
    var starkKeyPubAX: String
    var classHash: String
}

/// What prepare-creation and prepare-typed-data answer: typed data to sign.
public struct PreparedTypedData: Sendable, Hashable, Codable {
    /// The SNIP-12 typed data to check, hash and sign.
    public var typedData: TypedData
    /// The class hash of the account the typed data is for, as `0x` hex, when ChippiPay sends it.
    public var accountClassHash: String?
    /// The account contract's kind (`CHIPI`), when ChippiPay sends it.
    public var walletType: String?
}

/// The deployment data of `POST /chipi-wallets` (snake_case inside, as ChippiPay reads it).
struct DeploymentData: Encodable {
    var class_hash: String
    var salt: String
    var unique: String
    var calldata: [String]
}

/// `POST /chipi-wallets` (`userId` is sent as `null`, as ChipiPay's SDK sends it).
struct CreateWalletBody: Encodable {
    var externalUserId: String
    var userId: String? = nil
    var publicKey: String
    var walletType: String
    var userSignature: UserSignature
    var typedData: TypedData
    var deploymentData: DeploymentData
    var encryptedPrivateKey: String

    enum CodingKeys: String, CodingKey {
        case externalUserId, userId, publicKey, walletType, userSignature, typedData, deploymentData
        case encryptedPrivateKey
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(externalUserId, forKey: .externalUserId)
        if let userId {
            try container.encode(userId, forKey: .userId)
        } else {
            try container.encodeNil(forKey: .userId)
        }
        try container.encode(publicKey, forKey: .publicKey)
        try container.encode(walletType, forKey: .walletType)
        try container.encode(userSignature, forKey: .userSignature)
        try container.encode(typedData, forKey: .typedData)
        try container.encode(deploymentData, forKey: .deploymentData)
        try container.encode(encryptedPrivateKey, forKey: .encryptedPrivateKey)
    }
}

/// `POST /transactions/prepare-typed-data`.
struct PrepareTypedDataBody: Encodable {
    var publicKey: String
    var calls: [ChippiCall]
    var accountClassHash: String
}

/// `POST /transactions/execute-sponsored-transaction`.
struct ExecuteSponsoredBody: Encodable {
    var publicKey: String
    var typedData: TypedData
    var userSignature: UserSignature
    var saveToDatabase: Bool
    var walletType: String
}

/// The answer of a sponsored execution.
struct TransactionHashAnswer: Decodable {
    var transactionHash: String
}
