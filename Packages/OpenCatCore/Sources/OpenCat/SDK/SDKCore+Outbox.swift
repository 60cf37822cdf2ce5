import Foundation
import Logging
import OpenCatCore
import OpenCatStorage

extension SDKCore {
    /// Delivers what the outbox holds for this app user. Another user's entries wait for that user; stalled
    /// entries (see `DurableOutbox`) wait for an explicit purchase or restore.
    func syncOutbox() async -> SyncReport {
        var report = SyncReport(delivered: 0, stillPending: 0, rejected: 0)
        defer { report.storageFailures = outbox.failureCount }
        guard let (entries, unreadable) = outbox.pending(owner: appUserId) else { return report }
        report.unreadable = unreadable
        for entry in entries {
            guard let payload = entry.payload else { continue }
            if entry.isStalled {
                report.stalled += 1
                continue
            }
            switch await deliverOnce(id: OutboxID(rawValue: entry.id), proof: payload.proof) {
            case .delivered, .alreadyDone: report.delivered += 1
            case .deferred: report.stillPending += 1
            case .rejected: report.rejected += 1
            }
        }
        if report.delivered > 0 { refreshPublished() }
        return report
    }

    /// Delivers an outbox entry at most once (the outbox shares one attempt between concurrent callers and skips
    /// an entry already delivered). A rejected or stalled entry is attempted again only on an explicit new attempt
    /// (a purchase, a restore), never by background sync.
    func deliverOnce(id: OutboxID, proof: PurchaseProof, explicit: Bool = false) async -> DeliveryResult {
        await outbox.deliver(
            id: id.rawValue,
            payload: OutboxPayload(proof),
            explicit: explicit,
            alreadyDone: DeliveryResult.alreadyDone
        ) {
            await self.attemptDelivery(id: id, proof: proof)
        }.result
    }

    /// One attempt: the state is saved before the outbox marks the entry delivered, so a crash in between delivers
    /// it once more (the idempotency key makes that harmless) and never loses it.
    private func attemptDelivery(id: OutboxID, proof: PurchaseProof) async -> Outbox.Verdict<DeliveryResult> {
        let outcome = await delivery.deliver(proof, id: id)
        let result = apply(outcome)
        if case .delivered = result { await finish(proof) }
        switch outcome {
        case .verified, .posted: return .delivered(result)
        case .rejected: return .rejected(result)
        case .deferred(_, let counted): return .deferred(result, counted: counted)
        }
    }
}
