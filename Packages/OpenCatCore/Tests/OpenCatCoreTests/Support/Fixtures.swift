import Foundation
import OpenCatCore
import OpenCatTesting
import Synchronization

/// A PurchaseVerifier that answers from a table keyed by the proof's token, and counts calls.
final class TableVerifier: PurchaseVerifier {
    struct TransientFailure: TransientErrorClassifying, CustomStringConvertible {
        var isTransient: Bool { true }
        var description: String { "store unreachable" }
    }

    struct Forged: Error, CustomStringConvertible {
        var description: String { "signature mismatch" }
    }

    private let table: Mutex<[String: Result<VerifiedTransaction, any Error>]>
    private let calls = Mutex(0)

    init(_ table: [String: Result<VerifiedTransaction, any Error>] = [:]) { self.table = Mutex(table) }

    func set(_ token: String, _ result: Result<VerifiedTransaction, any Error>) {
        table.withLock { $0[token] = result }
    }
    var callCount: Int { calls.withLock { $0 } }

    func verifyPurchase(_ proof: PurchaseProof) async throws -> VerifiedTransaction {
        calls.withLock { $0 += 1 }
        guard let result = table.withLock({ $0[proof.token.revealed] }) else { throw Forged() }
        return try result.get()
    }
}

enum Fixture {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    static func proof(_ token: String, product: String, transaction: String, store: Store = .apple) -> PurchaseProof {
        PurchaseProof(
            store: store,
            kind: .appleSignedTransaction,
            token: Secret(token),
            productId: product,
            transactionId: transaction
        )
    }

    static func transaction(
        _ id: String,
        product: String,
        purchased: Date = epoch,
        expires: Date? = nil,
        status: TransactionInfo.Status = .active,
        grace: Date? = nil,
        willRenew: Bool = false,
        store: Store = .apple
    ) -> TransactionInfo {
        TransactionInfo(
            transactionId: id,
            productId: product,
            store: store,
            purchaseDate: purchased,
            expirationDate: expires,
            gracePeriodExpirationDate: grace,
            status: status,
            willRenew: willRenew
        )
    }

    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
