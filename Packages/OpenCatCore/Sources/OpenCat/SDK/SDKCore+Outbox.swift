import Foundation
import Logging
import OpenCatCore

extension SDKCore {
    /// Delivers what the outbox holds. Stalled entries (see ``Outbox``) wait for an explicit purchase or restore.
    func syncOutbox() async -> SyncReport {
        var report = SyncReport(delivered: 0, stillPending: 0, rejected: 0)
        defer { report.storageFailures = outbox.failureCount }
        guard let (entries, unreadable) = outbox.pending() else { return report }
        report.unreadable = unreadable
        for entry in entries {
            guard let payload = entry.payload else { continue }
            if entry.isStalled {
                report.stalled += 1
                continue
            }
            switch await deliverOnce(id: entry.id, proof: payload.proof) {
            case .delivered, .alreadyDone: report.delivered += 1
            case .deferred: report.stillPending += 1
            case .rejected: report.rejected += 1
            }
        }
        if report.delivered > 0 { refreshPublished() }
        return report
    }

    /// Delivers an outbox entry at most once: concurrent callers share one attempt, and an entry already delivered
    /// is not attempted again. A rejected or stalled entry is attempted again only on an explicit new attempt (a
    /// purchase, a restore), never by background sync.
    func deliverOnce(id: OutboxID, proof: PurchaseProof, explicit: Bool = false) async -> DeliveryResult {
        if let running = inFlight[id] { return await running.value }
        if let (state, attempts) = outbox.state(of: id) {
            switch state {
            case .delivered:
                return .alreadyDone
            case .rejected:
                guard explicit else { return .alreadyDone }
                outbox.reopen(id, proof: proof)
            case .pending:
                if explicit, attempts >= Outbox.maximumAttempts { outbox.reopen(id, proof: proof) }
            }
        }
        let task = Task { await self.performDelivery(id: id, proof: proof) }
        inFlight[id] = task
        let outcome = await task.value
        inFlight[id] = nil
        return outcome
    }

    private func performDelivery(id: OutboxID, proof: PurchaseProof) async -> DeliveryResult {
        let outcome = await delivery.deliver(proof, id: id)
        // The state is saved before the entry is marked delivered: a crash in between delivers it once more (the
        // idempotency key makes that harmless), never loses it.
        let result = apply(outcome)
        switch outcome {
        case .verified, .posted:
            outbox.complete(id, as: .delivered)
        case .rejected:
            outbox.complete(id, as: .rejected)
        case .deferred(_, let counted):
            outbox.recordFailure(id, counted: counted)
        }
        if case .delivered = result { await finish(proof) }
        return result
    }
}
