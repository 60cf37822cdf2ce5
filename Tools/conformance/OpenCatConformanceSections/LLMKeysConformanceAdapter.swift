import Foundation
import LLMKeyResolver
import MockStores
public import OpenCatConformance
public import OpenCatCore
public import StoreAdapters

/// Runs the LLM-keys section of the matrix through the same runner: each cassette names one call of the app
/// client (``APIKeyStatusClient``) and its result is reported as a ``VerifiedPurchase``: the decision or the masked
/// keys in `storeStatus`, how many providers are available or stored in `quantity`. ``APIKeyStatusError`` codes
/// become the ``StoreAdapterError`` of the same meaning (`invalidKey` keeps its own code).
///
/// `input.kind`: `llmStatus`, `llmMaskedKeys`, or `llmSaveKeys` (the changes in `input.context`: a provider mapped
/// to a key, or to `null` to delete it).
public struct LLMKeysConformanceAdapter: StoreAdapter {
    public var store: Store { MockCredentials.llmKeysStore }
    let client: APIKeyStatusClient
    let clock: any WallClock

    public init(environment: ConformanceEnvironment) throws {
        client = APIKeyStatusClient(
            baseURL: environment.baseURL,
            token: Secret(try environment.string("token")),
            http: environment.httpClient
        )
        clock = environment.httpClient.clock
    }

    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        do {
            switch proof.kind.rawValue {
            case "llmStatus":
                let status = try await client.status()
                return result(proof, Self.describe(LLMKeyDecision(status)), status.availableProviders.count)
            case "llmMaskedKeys":
                let keys = try await client.maskedKeys()
                return result(
                    proof,
                    keys.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
                    keys.count
                )
            case "llmSaveKeys":
                var changes: [LLMProvider: String?] = [:]
                for (name, value) in proof.context {
                    changes[LLMProvider(rawValue: name)] = value == "null" ? String?.none : value
                }
                let decision = try await client.save(changes)
                return result(proof, Self.describe(decision), Self.count(decision))
            default:
                throw StoreAdapterError(.invalidProof, store: store, "unknown LLM-keys operation \(proof.kind)")
            }
        } catch let error as APIKeyStatusError {
            let code: StoreAdapterError.Code =
                switch error.code {
                case .unauthorized: .unauthorized
                case .serverUnavailable: .storeUnavailable
                case .invalidResponse: .malformedResponse
                case .network: .network
                case .invalidKey: StoreAdapterError.Code(rawValue: "invalidKey")
                }
            throw StoreAdapterError(
                code,
                store: store,
                error.message,
                storeReason: error.field,
                httpStatus: error.status
            )
        }
    }

    static func describe(_ decision: LLMKeyDecision) -> String {
        switch decision {
        case .useSystemKeys: "useSystemKeys"
        case .useOwnKeys(let providers): "useOwnKeys:" + providers.map(\.rawValue).sorted().joined(separator: ",")
        case .askForKeys: "askForKeys"
        }
    }

    static func count(_ decision: LLMKeyDecision) -> Int {
        if case .useOwnKeys(let providers) = decision { return providers.count }
        return 0
    }

    private func result(_ proof: PurchaseProof, _ status: String, _ quantity: Int) -> VerifiedPurchase {
        .sectionAnswer(proof, status: status, quantity: quantity, at: clock.currentDate)
    }
}

extension ConformanceAdapterFactory {
    /// The LLM key API (`config.token`): the llm-keys section of the matrix.
    public static let llmKeys = ConformanceAdapterFactory(store: MockCredentials.llmKeysStore) { environment in
        try LLMKeysConformanceAdapter(environment: environment)
    }
}
