import Foundation
import HTTPTypes
import OpenCatCore

/// Pausing a subscription's payment collection (Stripe's `pause_collection`, set and cleared with "Update a
/// subscription", `POST /v1/subscriptions/{id}`; <https://docs.stripe.com/billing/subscriptions/pause-payment>).
extension StripeAdapter {
    /// Pauses a subscription's payment collection (`pause_collection[behavior]=void`: the invoices of the paused
    /// periods are voided, so the customer is not charged for them), after reading it, then reads it again: a
    /// subscription whose collection is paused gives no access (``VerifiedPurchase/State/expired``, store status
    /// `<status>/paused`) until it resumes (``resumeSubscription(id:reason:)``).
    ///
    /// One paused already is ``StoreAdapterError/Code/alreadyDone`` (Stripe would accept the update again); a
    /// cancelled or ended one is ``StoreAdapterError/Code/invalidProof`` with its status. `reason` is not sent (Stripe
    /// takes none). The `Idempotency-Key` is `opencat-suspend-<id>-<uuid>`, shared by the HTTP client's retries.
    public func suspendSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        try Self.checkSubscriptionId(id)
        let proof = PurchaseProof(store: .stripe, kind: .stripeSubscription, token: Secret(id))
        let current = try await verify(proof)
        let status = current.storeStatus ?? ""
        if status.hasSuffix("/paused") {
            throw StoreAdapterError(
                .alreadyDone,
                store: .stripe,
                "the subscription's payment collection is paused already",
                storeReason: status
            )
        }
        guard ["active", "trialing", "past_due"].contains(status) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .stripe,
                "only an active, trialing or past-due subscription's collection can be paused",
                storeReason: status
            )
        }
        try await updatePauseCollection(id: id, form: "pause_collection%5Bbehavior%5D=void", verb: "suspend")
        return try await verify(proof)
    }

    /// Clears `pause_collection` (`pause_collection=`, Stripe's way to unset it) so collection resumes with the next
    /// invoice; what ``resumeSubscription(id:reason:)`` does for a subscription whose collection is paused.
    func resumeCollection(id: String) async throws {
        try await updatePauseCollection(id: id, form: "pause_collection=", verb: "resume")
    }

    /// `POST /v1/subscriptions/{id}` with `form`, an `Idempotency-Key` of its own; a non-200 answer is mapped.
    private func updatePauseCollection(id: String, form: String, verb: String) async throws {
        var request = APIRequest.make(.post, baseURL: configuration.baseURL, path: "/v1/subscriptions/\(id)")
        request.headerFields[HTTPField.Name("Idempotency-Key")!] =
            "opencat-\(verb)-\(id)-\(UUID().uuidString.lowercased())"
        let response = try await http.send(
            authorizedRequest(request, form: true),
            body: Data(form.utf8),
            idempotent: true
        )
        guard response.status.code == 200 else { throw error(for: response, resource: "subscription") }
    }
}
