import Foundation
import Logging
import OpenCatCore

/// The App Store Server API plumbing every call of the adapter shares: the client with the configured credentials,
/// the environments asked in order, and the transaction-id check before an id goes into a path.
extension AppleStoreAdapter {
    /// The App Store Server API client, or `unauthorized` when no credentials are configured.
    func serverAPI() throws(StoreAdapterError) -> AppStoreServerAPI {
        guard let credentials = configuration.apiCredentials else {
            throw StoreAdapterError(
                .unauthorized,
                store: .apple,
                "no App Store Server API credentials are configured",
                storeReason: "notConfigured"
            )
        }
        return AppStoreServerAPI(http: http, credentials: credentials, bundleId: configuration.bundleId)
    }

    /// The environments asked, in order: production then the sandbox, or the one ``Configuration/environment`` names.
    var environmentBaseURLs: [(environment: VerifiedPurchase.Environment, baseURL: URL)] {
        switch configuration.environment {
        case .production?: [(.production, configuration.productionBaseURL)]
        case .sandbox?: [(.sandbox, configuration.sandboxBaseURL)]
        case nil: [(.production, configuration.productionBaseURL), (.sandbox, configuration.sandboxBaseURL)]
        }
    }

    /// Production, or the sandbox when the adapter is configured for it alone: for calls no transaction id routes.
    var defaultBaseURL: URL {
        configuration.environment == .sandbox ? configuration.sandboxBaseURL : configuration.productionBaseURL
    }

    /// Runs a call in each environment in turn (``environmentBaseURLs``), moving on to the next only when Apple
    /// answers one of `codes` (by default 4040010, transaction id not found): an id lives in one environment.
    /// - Returns: the first environment's answer that is not one of `codes`.
    /// - Throws: the call's error; `notFound` when every environment answered one of `codes`.
    func askingEachEnvironment<Value>(
        fallbackOn codes: Set<Int64> = [AppStoreServerAPI.ErrorCode.transactionIdNotFound],
        _ call: (AppStoreServerAPI, VerifiedPurchase.Environment, URL) async throws -> Value
    ) async throws -> Value {
        let api = try serverAPI()
        let environments = environmentBaseURLs
        var last: StoreAdapterError?
        for (index, (environment, baseURL)) in environments.enumerated() {
            do {
                return try await call(api, environment, baseURL)
            } catch let error as StoreAdapterError {
                guard index < environments.count - 1, let reason = error.storeReason, let code = Int64(reason),
                    codes.contains(code)
                else { throw error }
                logger.debug(
                    "not found in this App Store environment; asking the next",
                    metadata: ["tried": "\(environment)"]
                )
                last = error
            }
        }
        throw last ?? StoreAdapterError(.notFound, store: .apple, "the App Store does not know this transaction")
    }

    /// A transaction id checked before it goes into a path: digits only, at most 64.
    @discardableResult
    static func checkedTransactionId(_ id: String) throws(StoreAdapterError) -> String {
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the transaction id is not an App Store transaction id",
                storeReason: "invalidTransactionId"
            )
        }
        return id
    }
}
