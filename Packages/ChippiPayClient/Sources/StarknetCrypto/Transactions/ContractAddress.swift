/// Starknet contract addresses.
public enum ContractAddress {
    /// `'STARKNET_CONTRACT_ADDRESS'`.
    static let prefix = Felt(unchecked: StarkCurve.hex("0x535441524b4e45545f434f4e54524143545f41444452455353"))
    /// 2²⁵¹ − 256: addresses are reduced below it.
    static let bound = (UInt256.one << 251) &- UInt256(256)

    /// The address a deployment yields: `pedersen_hash_on_elements(['STARKNET_CONTRACT_ADDRESS', deployer, salt,
    /// class_hash, pedersen_hash_on_elements(constructor_calldata)]) mod (2²⁵¹ − 256)`.
    public static func compute(
        salt: Felt,
        classHash: Felt,
        constructorCalldata: [Felt],
        deployer: Felt = .zero
    ) -> Felt {
        let hash = Pedersen.hash(array: [
            prefix, deployer, salt, classHash, Pedersen.hash(array: constructorCalldata),
        ])
        let value = hash.value >= bound ? hash.value &- bound : hash.value
        return Felt(unchecked: value)
    }
}
