import OpenCatCore

/// Verifies one genuine proof and refuses every other, as the App Store adapter (StoreAdapters'
/// `AdapterPurchaseVerifier`) refuses a signed transaction whose signature does not verify.
struct SingleTransactionVerifier: PurchaseVerifier {
    /// The proof's token that verifies.
    let genuineToken: String
    /// What it proves.
    let transaction: TransactionInfo

    /// The refusal of any other proof.
    struct Forged: Error {}

    func verifyPurchase(_ proof: PurchaseProof) async throws -> VerifiedTransaction {
        guard proof.token.revealed == genuineToken else { throw Forged() }
        return VerifiedTransaction(transaction: transaction)
    }
}
