/// Namespace for PayPal's wire models (``PayPal/Order``, ``PayPal/Capture``, ``PayPal/Event``, …), named as
/// PayPal's REST API reference names them without colliding with other stores' models.
///
/// The adapter is ``PayPalAdapter``; webhook deliveries are checked by ``PayPalWebhookVerifier``.
public enum PayPal {}
