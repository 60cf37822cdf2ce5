import Foundation
public import OpenCatCore
import Synchronization

// What happens outside a purchase call: Ask to Buy decisions, purchases on other devices, renewals and refunds.
extension MockStoreClient {
    // MARK: Events

    /// Completes the oldest pending purchase of a product (Ask to Buy approved) and emits its proof.
    /// - Returns: the proof.
    /// - Throws: ``MockStoreClientError/noPendingPurchase(_:)``; what the minter throws.
    @discardableResult
    public func approvePendingPurchase(productId: String) throws -> PurchaseProof {
        let pending = state.withLock { state -> (productId: String, appUserId: String)? in
            guard let index = state.pending.firstIndex(where: { $0.productId == productId }) else { return nil }
            return state.pending.remove(at: index)
        }
        guard let pending else { throw MockStoreClientError.noPendingPurchase(productId) }
        let proof = try record(productId: productId, appUserId: pending.appUserId, reason: .externalPurchase)
        emit([proof])
        return proof
    }

    /// Drops the oldest pending purchase of a product (Ask to Buy declined). Nothing is emitted.
    /// - Returns: whether there was one.
    @discardableResult
    public func declinePendingPurchase(productId: String) -> Bool {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.productId == productId }) else { return false }
            state.pending.remove(at: index)
            return true
        }
    }

    /// A purchase made outside the app (another device, a promo code): recorded and emitted.
    /// - Returns: the proof.
    /// - Throws: ``MockStoreClientError/unknownProduct(_:)``; what the minter throws.
    @discardableResult
    public func deliverExternalPurchase(productId: String, appUserId: String) throws -> PurchaseProof {
        guard catalog[productId] != nil else { throw MockStoreClientError.unknownProduct(productId) }
        let proof = try record(productId: productId, appUserId: appUserId, reason: .externalPurchase)
        emit([proof])
        return proof
    }

    /// Renews every auto-renewable subscription whose period ended by the clock's current date and that is set to
    /// renew and not refunded, once per elapsed period, and emits each renewal's proof.
    /// - Returns: the renewals' proofs, oldest first.
    /// - Throws: what the minter throws.
    @discardableResult
    public func advanceRenewals() throws -> [PurchaseProof] {
        let now = clock.currentDate
        var proofs: [PurchaseProof] = []
        while true {
            let due: Transaction? = state.withLock { state in
                var latest: [String: Transaction] = [:]
                for entry in state.ledger { latest[entry.transaction.originalTransactionId] = entry.transaction }
                let candidates = latest.values.filter { transaction in
                    transaction.productType == .autoRenewable && !transaction.isRefunded
                        && (state.chains[transaction.originalTransactionId]?.willRenew ?? true)
                        && (transaction.expirationDate.map { $0 <= now } ?? false)
                }
                guard let next = candidates.min(by: { $0.expirationDate! < $1.expirationDate! }) else { return nil }
                var renewal = next
                renewal.transactionId = state.makeTransactionId()
                renewal.purchaseDate = next.expirationDate!
                renewal.reason = .renewal
                renewal.eventDate = next.expirationDate!
                return renewal
            }
            guard var renewal = due else { break }
            guard
                let period = catalog[renewal.productId]?.subscriptionPeriod.flatMap(SubscriptionPeriod.init(iso8601:)),
                let expiration = period.added(to: renewal.purchaseDate)
            else { throw MockStoreClientError.invalidSubscriptionPeriod(renewal.productId) }
            renewal.expirationDate = expiration
            let proof = try minter(renewal)
            state.withLock { $0.ledger.append((renewal, proof)) }
            proofs.append(proof)
        }
        emit(proofs)
        return proofs
    }

    /// Refunds a transaction: it stops granting access, and a proof of the refunded transaction is emitted.
    /// - Returns: that proof.
    /// - Throws: ``MockStoreClientError/unknownTransaction(_:)``; what the minter throws.
    @discardableResult
    public func refund(transactionId: String) throws -> PurchaseProof {
        let now = clock.currentDate
        let refunded: Transaction? = state.withLock { state in
            guard let entry = state.ledger.last(where: { $0.transaction.transactionId == transactionId }) else {
                return nil
            }
            var transaction = entry.transaction
            transaction.revocationDate = now
            transaction.reason = .refund
            transaction.eventDate = now
            return transaction
        }
        guard let refunded else { throw MockStoreClientError.unknownTransaction(transactionId) }
        let proof = try minter(refunded)
        state.withLock { state in
            if let index = state.ledger.lastIndex(where: { $0.transaction.transactionId == transactionId }) {
                state.ledger[index] = (refunded, proof)
            }
        }
        emit([proof])
        return proof
    }
}
