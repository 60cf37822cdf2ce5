import Foundation
import OpenCatCore
import OpenCatTesting

@testable import StoreAdapters

/// Builders for PayPal test payloads (OpenCat's own, written from PayPal's REST reference).
enum PayPalTestFixtures {
    static let clientId = "AcOpenCatTestClientId"
    /// A fake client secret: long and recognizable, so leaks are easy to find.
    static let clientSecret = "EOpenCatFAKEclientSECRETnotReal0123456789"
    static let accessToken = "A21AAOpenCatFAKEaccessTOKEN0001"
    static let orderId = "5O190127TN364715T"
    static let captureId = "3C679366HH908993F"
    static let base = "/paypal"
    static let tokenPath = "\(base)/v1/oauth2/token"
    static let orderPath = "\(base)/v2/checkout/orders/\(orderId)"
    static let capturePath = "\(orderPath)/capture"
    /// The merchant every test order pays (purchase_units[0].payee.merchant_id).
    static let payeeMerchantId = "OPENCATMERCH7"
    /// The configured price of the test product.
    static let prices = ["pro.lifetime": Money(amount: Decimal(string: "10.00")!, currency: "USD")]

    static func adapter(
        _ transport: ScriptedTransport,
        clock: ManualClock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true),
        maxAttempts: Int = 3,
        environment: PayPalAdapter.Configuration.Environment = .sandbox,
        captureApproved: Bool = true,
        webhookId: String? = "1JE4291016473214C",
        payeeMerchantId: String = payeeMerchantId,
        prices: [String: Money] = prices,
        logger: LogCapture? = nil
    ) -> PayPalAdapter {
        var client = HTTPClient.scripted(transport, clock: clock, maxAttempts: maxAttempts)
        if let logger { client.logger = logger.logger }
        var configuration = PayPalAdapter.Configuration(
            clientId: clientId,
            clientSecret: Secret(clientSecret),
            environment: environment,
            payeeMerchantId: payeeMerchantId,
            prices: prices,
            baseURL: URL(string: "http://127.0.0.1:9090/paypal/")!,
            captureApproved: captureApproved,
            webhookId: webhookId,
            httpClient: client
        )
        if let logger { configuration.logger = logger.logger }
        return PayPalAdapter(configuration: configuration)
    }

    static func proof(_ token: String = orderId, productId: String? = "pro.lifetime") -> PurchaseProof {
        PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(token), productId: productId)
    }

    static func token(_ accessToken: String = accessToken, expiresIn: Int = 32400) -> String {
        """
        {"scope": "https://uri.paypal.com/services/payments/payment", "access_token": "\(accessToken)",
         "token_type": "Bearer", "app_id": "APP-80W284485P519543T", "expires_in": \(expiresIn), "nonce": "2024-01-01T00:00:00Zabc"}
        """
    }

    static func capture(status: String, amount: String = "10.00", currency: String = "USD", id: String = captureId)
        -> String
    {
        """
        {"id": "\(id)", "status": "\(status)", "amount": {"currency_code": "\(currency)", "value": "\(amount)"},
         "final_capture": true, "custom_id": "user-7",
         "seller_receivable_breakdown": {"gross_amount": {"currency_code": "\(currency)", "value": "\(amount)"},
           "paypal_fee": {"currency_code": "\(currency)", "value": "0.84"}, "net_amount": {"currency_code": "\(currency)", "value": "9.16"}},
         "create_time": "2024-03-01T10:00:05Z", "update_time": "2024-03-01T10:00:05Z"}
        """
    }

    static func refund(_ amount: String, status: String = "COMPLETED", id: String) -> String {
        #"{"id": "\#(id)", "status": "\#(status)", "amount": {"currency_code": "USD", "value": "\#(amount)"}, "create_time": "2024-03-02T10:00:00Z"}"#
    }

    static func order(
        status: String,
        intent: String = "CAPTURE",
        referenceId: String? = "pro.lifetime",
        customId: String? = "user-7",
        amount: String = "10.00",
        currency: String = "USD",
        payee: String? = payeeMerchantId,
        captures: [String]? = nil,
        refunds: [String]? = nil,
        authorizations: [String]? = nil
    ) -> String {
        var payments: [String] = []
        if let captures { payments.append(#""captures": [\#(captures.joined(separator: ","))]"#) }
        if let refunds { payments.append(#""refunds": [\#(refunds.joined(separator: ","))]"#) }
        if let authorizations { payments.append(#""authorizations": [\#(authorizations.joined(separator: ","))]"#) }
        var unit: [String] = []
        if let referenceId { unit.append(#""reference_id": "\#(referenceId)""#) }
        if let customId { unit.append(#""custom_id": "\#(customId)""#) }
        unit.append(#""amount": {"currency_code": "\#(currency)", "value": "\#(amount)"}"#)
        if let payee {
            unit.append(#""payee": {"email_address": "merchant@example.com", "merchant_id": "\#(payee)"}"#)
        } else {
            unit.append(#""payee": {"email_address": "merchant@example.com"}"#)
        }
        if !payments.isEmpty { unit.append(#""payments": {\#(payments.joined(separator: ","))}"#) }
        return """
            {"id": "\(orderId)", "status": "\(status)", "intent": "\(intent)",
             "purchase_units": [{\(unit.joined(separator: ","))}],
             "payer": {"name": {"given_name": "Ada", "surname": "L"}, "email_address": "buyer@example.com", "payer_id": "QYR5Z8XDVJNXQ"},
             "create_time": "2024-03-01T09:59:00Z", "update_time": "2024-03-01T10:00:05Z",
             "links": [{"href": "https://api-m.sandbox.paypal.com/v2/checkout/orders/\(orderId)", "rel": "self", "method": "GET"}]}
            """
    }

    static func error(name: String, issue: String? = nil, debugId: String = "81db5c4ddfa35", status: Int = 422)
        -> String
    {
        let details = issue.map { #", "details": [{"issue": "\#($0)", "description": "about \#(orderId)"}]"# } ?? ""
        return
            #"{"name": "\#(name)", "message": "Something about order \#(orderId)", "debug_id": "\#(debugId)"\#(details)}"#
    }
}
