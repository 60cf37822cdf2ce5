import ChippiPayClient
import Crypto
import Foundation
import Logging
import MockStores
public import OpenCatConformance
public import OpenCatCore
import OpenCatStorage
import StarknetCrypto
public import StoreAdapters

/// Runs the ChippiPay section of the matrix: each cassette is one purchase of a service paid from a Starknet vault
/// (``VaultPurchaseFlow``) against ChippiPay's API and a Starknet node, both served by MockStores. A delivered
/// purchase is reported as a ``VerifiedPurchase`` (the purchase id, the SKU, ChippiPay's status); a
/// ``ChippiPayError`` becomes the ``StoreAdapterError`` of the same meaning, ChippiPay's own outcomes keeping their
/// codes (`skuNotFound`, `insufficientBalance`, `withdrawalReverted`, `purchaseFailed`, `stillPending`).
///
/// Input: `input.kind` `chippipayPurchase`, `input.token` the flow id, `input.context` `skuId`, `reference`,
/// `fiatAmount`, `currency`, `rate`. Config: `apiKey`, `secretKey`, `account`, `vault`, `recipient`, `chainId`,
/// `rpcPath`. The account's private key is the run's (``SectionCredentials/starknetAccountKey``), never a
/// cassette's.
public struct ChippiPayConformanceAdapter: StoreAdapter {
    public var store: Store { MockCredentials.chippiPayStore }
    let environment: ConformanceEnvironment
    let section: SectionCredentials

    public init(environment: ConformanceEnvironment, section: SectionCredentials) throws {
        self.section = section
        self.environment = environment
    }

    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard proof.kind.rawValue == "chippipayPurchase" else {
            throw StoreAdapterError(.invalidProof, store: store, "unknown ChippiPay operation \(proof.kind)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-chippipay-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let flow = try makeFlow(cacheFile: folder.appendingPathComponent("cache.sqlite"))
            let request = try Self.request(proof)
            let purchase = try await flow.run(request)
            return VerifiedPurchase(
                store: store,
                transactionId: purchase.id,
                productId: purchase.skuId ?? request.skuId,
                purchaseDate: environment.httpClient.clock.currentDate,
                state: .active,
                environment: .production,
                quantity: 1,
                storeStatus: purchase.status.rawValue
            )
        } catch let error as ChippiPayError {
            throw StoreAdapterError(
                Self.code(error.code),
                store: store,
                error.message,
                storeReason: [error.serverCode, error.reason].compactMap { $0 }.joined(separator: ": "),
                httpStatus: error.status
            )
        }
    }

    func makeFlow(cacheFile: URL) throws -> VaultPurchaseFlow {
        let http = environment.httpClient
        let client = ChippiPayClient(
            configuration: ChippiPayConfiguration(
                baseURL: environment.url(path: "/v1"),
                apiKey: Secret(try environment.string("apiKey")),
                bearerToken: Secret(try environment.string("secretKey"))
            ),
            http: http
        )
        let rpc = StarknetRPCClient(url: environment.url(path: try environment.string("rpcPath")), http: http)
        let account = StarknetAccount(
            address: try Self.felt(environment.string("account"), "account"),
            key: section.starknetAccountKey,
            chainID: try StarknetChainID(parsing: environment.string("chainId")),
            rpc: rpc
        )
        let cache = try EncryptedCache(
            fileURL: cacheFile,
            keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
            logger: Logger(label: "dev.opencat.conformance.chippipay", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return VaultPurchaseFlow(
            chippiPay: client,
            account: account,
            vault: VaultContract(address: try Self.felt(environment.string("vault"), "vault")),
            recipient: try Self.felt(environment.string("recipient"), "recipient"),
            cache: cache
        )
    }

    static func request(_ proof: PurchaseProof) throws -> VaultPurchaseRequest {
        func value(_ key: String) throws -> String {
            guard let value = proof.context[key] else { throw ConformanceError("input.context.\(key) is missing") }
            return value
        }
        guard let fiat = Decimal(string: try value("fiatAmount"), locale: Locale(identifier: "en_US_POSIX")),
            let rate = Decimal(string: try value("rate"), locale: Locale(identifier: "en_US_POSIX"))
        else { throw ConformanceError("input.context.fiatAmount and rate must be decimal numbers") }
        return VaultPurchaseRequest(
            flowID: proof.token.revealed,
            skuId: try value("skuId"),
            reference: try value("reference"),
            fiatAmount: fiat,
            currency: try value("currency"),
            rate: rate
        )
    }

    static func felt(_ text: String, _ name: String) throws -> Felt {
        do { return try Felt(hex: text) } catch { throw ConformanceError("config.\(name): \(error.reason)") }
    }

    static func code(_ code: ChippiPayError.Code) -> StoreAdapterError.Code {
        switch code {
        case .credentialsInvalid: .unauthorized
        case .serviceUnavailable, .serviceError: .storeUnavailable
        case .rateLimited: .rateLimited
        case .timeout: .timeout
        case .network: .network
        case .malformedResponse: .malformedResponse
        case .invalidRequest, .invalidInput: .invalidProof
        default: StoreAdapterError.Code(rawValue: code.rawValue)
        }
    }
}

extension ConformanceAdapterFactory {
    /// ChippiPay and the Starknet node: the chippipay section of the matrix.
    /// The ChippiPay section's adapter, with the run's section credentials.
    public static func chippiPay(_ section: SectionCredentials) -> ConformanceAdapterFactory {
        ConformanceAdapterFactory(store: MockCredentials.chippiPayStore) { environment in
            try ChippiPayConformanceAdapter(environment: environment, section: section)
        }
    }
}
