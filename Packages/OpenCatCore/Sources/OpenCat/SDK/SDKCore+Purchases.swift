import Foundation
import Logging
import OpenCatCore

extension SDKCore {
    func purchase(productID: String) async throws -> PurchaseResult {
        logger.debug("purchase started", metadata: ["product": "\(productID)"])
        let outcome: StorePurchaseResult
        do {
            outcome = try await storeClient.purchase(productId: productID, appUserId: appUserId)
        } catch let error as OpenCatError {
            throw error
        } catch {
            logger.debug("purchase failed in the store", metadata: ["product": "\(productID)"])
            throw OpenCatError.store("the store failed to complete the purchase", underlying: error)
        }
        switch outcome {
        case .cancelled:
            logger.debug("purchase cancelled", metadata: ["product": "\(productID)"])
            throw OpenCatError.purchaseCancelled(productId: productID)
        case .pending:
            logger.debug("purchase pending", metadata: ["product": "\(productID)"])
            return PurchaseResult(status: .pending, transaction: nil, customerInfo: refreshPublished())
        case .success(let proof):
            let id = OutboxID.purchase(proof, user: appUserId)
            // Still delivered now when it cannot be saved; only a later retry would need the outbox.
            let saved = outbox.save(proof, id: id, owner: appUserId)
            // A purchase is a new, explicit attempt: an earlier rejection of the same transaction is tried again.
            switch await deliverOnce(id: id, proof: proof, explicit: true) {
            case .delivered(let transaction):
                logger.debug("purchase completed", metadata: ["product": "\(productID)"])
                return PurchaseResult(status: .completed, transaction: transaction, customerInfo: refreshPublished())
            case .alreadyDone:
                return PurchaseResult(status: .completed, transaction: nil, customerInfo: refreshPublished())
            case .deferred(let error):
                guard saved else {
                    // Nothing would deliver it later: say so rather than promise a sync.
                    throw OpenCatError(
                        .cache,
                        "the purchase of \(productID) could not be delivered now nor saved for later",
                        underlying: error
                    )
                }
                logger.info("purchase kept for later delivery", metadata: ["reason": "\(Delivery.reason(error))"])
                return PurchaseResult(status: .awaitingSync, transaction: nil, customerInfo: refreshPublished())
            case .rejected(let error):
                logger.debug("purchase rejected", metadata: ["reason": "\(Delivery.reason(error))"])
                throw OpenCatError.purchaseFailed("the purchase of \(productID) was not accepted", underlying: error)
            }
        }
    }

    func restorePurchases() async throws -> CustomerInfo {
        let proofs: [PurchaseProof]
        do { proofs = try await storeClient.currentEntitlements() } catch {
            throw OpenCatError.store("the store could not list current purchases", underlying: error)
        }
        logger.debug("restore", metadata: ["count": "\(proofs.count)"])
        switch backend {
        case .verifier(let verifier, _, _):
            // Re-verify every purchase the store reports, even one verified before: it may have changed. Bounded
            // concurrency, one merge and one cache write: restoring N transactions is O(N).
            let results = await Self.verifyAll(proofs, with: verifier, concurrency: restoreConcurrency)
            var rejected = 0
            applyVerified(results.compactMap { try? $0.get() })
            for case .failure in results { rejected += 1 }
            if rejected > 0 {
                logger.info("restore: some purchases did not verify", metadata: ["count": "\(rejected)"])
            }
        case .server:
            for proof in proofs {
                let id = OutboxID.purchase(proof, user: appUserId)
                outbox.save(proof, id: id, owner: appUserId)
                _ = await deliverOnce(id: id, proof: proof, explicit: true)
            }
        }
        return await customerInfo()
    }

    /// Verifies proofs with at most `concurrency` verifications in flight; results in the proofs' order.
    nonisolated static func verifyAll(
        _ proofs: [PurchaseProof],
        with verifier: any PurchaseVerifier,
        concurrency: Int
    ) async -> [Result<VerifiedTransaction, any Error>] {
        let verify: @Sendable (Int) async -> (Int, Result<VerifiedTransaction, any Error>) = { index in
            do { return (index, .success(try await verifier.verifyPurchase(proofs[index]))) } catch {
                return (index, .failure(error))
            }
        }
        return await withTaskGroup(of: (Int, Result<VerifiedTransaction, any Error>).self) { group in
            var results = [Result<VerifiedTransaction, any Error>?](repeating: nil, count: proofs.count)
            var next = min(concurrency, proofs.count)
            for index in 0..<next { group.addTask { await verify(index) } }
            while let (index, result) = await group.next() {
                results[index] = result
                if next < proofs.count {
                    let index = next
                    group.addTask { await verify(index) }
                    next += 1
                }
            }
            return results.map { $0 ?? .failure(CancellationError()) }
        }
    }

    /// Merges verified transactions and takes in their times, with one cache write.
    func applyVerified(_ verified: [VerifiedTransaction]) {
        for transaction in verified { confirmTimes(of: transaction) }
        mergeAndSave(verified.map(\.transaction))
    }

    /// Handles a proof from the store's transaction updates stream (renewal, refund, purchase elsewhere).
    /// Updates are verified or posted directly (a refund reuses the transaction id of the purchase, so the
    /// purchase outbox's once-per-transaction rule must not swallow it); one that cannot be delivered now goes to
    /// the outbox under its update id.
    func handleUpdate(_ proof: PurchaseProof) async {
        let id = OutboxID.update(proof, user: appUserId)
        let outcome = await delivery.deliver(proof, id: id)
        switch apply(outcome) {
        case .delivered:
            await finish(proof)
        case .deferred:
            outbox.save(proof, id: id, owner: appUserId)
        case .rejected(let error):
            logger.warning("transaction update rejected", metadata: ["reason": "\(Delivery.reason(error))"])
        case .alreadyDone:
            break
        }
        refreshPublished()
    }

    func finish(_ proof: PurchaseProof) async {
        do { try await storeClient.finish(proof) } catch {
            logger.warning("finishing the transaction failed", metadata: ["error": "\(Delivery.reason(error))"])
        }
    }
}
