import OpenCatCore

/// Maps ISteamMicroTxn error codes (Appendix B of the Microtransactions Implementation Guide) to the shared codes.
///
/// | Steam | meaning | shared code |
/// |---|---|---|
/// | 1 | Success (in a `Failure`: contradictory) | `malformedResponse` |
/// | 2 | The operation failed | `notFound` for `QueryTxn` (Valve documents no "no such order" code; a failed query of a well-formed id is read as an unknown order), `notPaid` for `FinalizeTxn` |
/// | 3 | Invalid parameter | `invalidProof` |
/// | 4 | Internal error | `storeUnavailable` |
/// | 5 | User has not approved transaction | `notPaid` |
/// | 6 | Transaction has already been committed | `FinalizeTxn`: the order is re-queried; elsewhere `malformedResponse` |
/// | 7–16 | user not logged in, currency mismatch, account unavailable, denied by user, restricted country, billing agreement problems | `notPaid` |
/// | 100–107 | insufficient funds, finalization time limit exceeded, account disabled or not allowed to purchase, fraud, no cached payment method, spending limit, pending transaction | `notPaid` |
/// | other | not documented | `malformedResponse` |
///
/// `AdjustAgreement`'s 2 (the operation failed) and 12–16 (billing agreement problems) are `invalidProof`: the
/// agreement's next payment could not be moved (not Steam-billed, not active, or a day Steam does not accept).
///
/// `GetReport` answers only 2 and 4 (`storeUnavailable`) or 3 (`misconfigured`: the app id or time was refused)
/// meaningfully; any other code is `malformedResponse`.
///
/// `ISteamUserAuth/AuthenticateUserTicket` has codes of its own: 102 "Ticket for other app" is `wrongApplication`,
/// every other code (101 "Invalid ticket", 3 "Invalid parameter", an expired or cancelled ticket, …) is
/// `invalidProof`.
///
/// The code is kept as ``StoreAdapterError/storeReason`` (`"errorcode 100"`); Steam's `errordesc` is not copied,
/// since it can quote request values.
///
/// See <https://partner.steamgames.com/doc/features/microtransactions/implementation#error_codes>.
enum SteamErrorCode {
    /// The ISteamMicroTxn method that answered.
    enum Method: String, Sendable {
        case queryTxn = "QueryTxn"
        case finalizeTxn = "FinalizeTxn"
        case refundTxn = "RefundTxn"
        case getUserAgreementInfo = "GetUserAgreementInfo"
        case cancelAgreement = "CancelAgreement"
        case adjustAgreement = "AdjustAgreement"
        case processAgreement = "ProcessAgreement"
        case getReport = "GetReport"
        case authenticateUserTicket = "AuthenticateUserTicket"
    }

    /// `6`: the transaction was already committed (finalized).
    static let alreadyCommitted: Int64 = 6

    /// The shared code and an OpenCat message for a Steam error code.
    static func map(_ code: Int64, method: Method) -> (code: StoreAdapterError.Code, message: String) {
        switch method {
        case .authenticateUserTicket:
            return code == 102
                ? (.wrongApplication, "Steam says the ticket was issued for another app")
                : (.invalidProof, "Steam did not accept the authentication ticket")
        case .getReport:
            switch code {
            case 2, 4: return (.storeUnavailable, "Steam could not produce the report")
            case 3: return (.misconfigured, "Steam rejected a parameter of the report request (check the app id)")
            default: return (.malformedResponse, "Steam answered an unexpected error code for GetReport")
            }
        case .adjustAgreement where code == 2 || (12...16).contains(code):
            return (.invalidProof, "Steam refused to move the billing agreement's next payment")
        default:
            break
        }
        switch code {
        case 1:
            return (.malformedResponse, "Steam reported a failure with a success code")
        case 2:
            return method == .queryTxn
                ? (.notFound, "Steam found no such order for this app")
                : (.notPaid, "Steam could not complete the order")
        case 3:
            return (.invalidProof, "Steam rejected a parameter of the request")
        case 4:
            return (.storeUnavailable, "Steam had an internal error")
        case 5:
            return (.notPaid, "the user has not approved the transaction")
        case 6:
            return (.malformedResponse, "Steam says the transaction was already committed")
        case 7:
            return (.notPaid, "the user is not logged in to Steam")
        case 8:
            return (.notPaid, "the currency does not match the user's Steam account currency")
        case 9:
            return (.notPaid, "the Steam account does not exist or is temporarily unavailable")
        case 10:
            return (.notPaid, "the user denied the transaction")
        case 11:
            return (.notPaid, "the transaction was denied because the user is in a restricted country")
        case 12...16:
            return (.notPaid, "the billing agreement cannot be used for this transaction")
        case 100:
            return (.notPaid, "insufficient funds")
        case 101:
            return (.notPaid, "the time limit for finalization was exceeded")
        case 102:
            return (.notPaid, "the Steam account is disabled")
        case 103:
            return (.notPaid, "the Steam account is not allowed to purchase")
        case 104:
            return (.notPaid, "the transaction was denied by fraud detection")
        case 105:
            return (.notPaid, "no cached payment method")
        case 106:
            return (.notPaid, "the transaction would exceed the billing agreement's spending limit")
        case 107:
            return (.notPaid, "the user has a pending transaction to complete first")
        default:
            return (.malformedResponse, "Steam answered an undocumented error code")
        }
    }
}
