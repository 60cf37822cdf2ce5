/// Namespace for Stripe's wire models (``Stripe/PaymentIntent``, ``Stripe/Charge``, ``Stripe/Event``, …) and
/// Stripe facts (currency exponents), so that they keep the names Stripe's API reference gives them without
/// colliding with other stores' models.
///
/// The adapter is ``StripeAdapter``; webhook signatures are checked by ``StripeWebhookVerifier``.
public enum Stripe {}
