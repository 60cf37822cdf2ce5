import Foundation
import HTTPTypes
import Logging
public import OpenCatCore
public import StarknetCrypto

/// A Starknet JSON-RPC client (specification v0.8) over OpenCat's `HTTPClient`: reads are retried
/// like any safe request; node errors become ``ChippiPayError/Code/rpcError`` with the node's code and data.
public struct StarknetRPCClient: Sendable {
    /// The node's JSON-RPC endpoint.
    public let url: URL
    let http: HTTPClient
    let logger: Logger

    /// A client for the node at `url`.
    public init(url: URL, http: HTTPClient = HTTPClient(), logger: Logger? = nil) {
        self.url = url
        self.http = http
        self.logger = logger ?? http.logger
    }

    /// JSON-RPC error codes this client acts on.
    public enum ErrorCode {
        /// 29: no transaction with that hash is known (yet).
        public static let transactionHashNotFound = 29
        /// 20: no contract at that address.
        public static let contractNotFound = 20
        /// 40: the contract's execution failed in a call.
        public static let contractError = 40
        /// 41: the transaction's execution failed.
        public static let transactionExecutionError = 41
        /// 52: the transaction's nonce is not the account's next one.
        public static let invalidTransactionNonce = 52
        /// 59: the node already has this transaction.
        public static let duplicateTransaction = 59
    }

    /// `starknet_chainId`: the chain the node serves (`SN_MAIN`, `SN_SEPOLIA`). Throws `ChippiPayError` on a
    /// network, node or malformed answer.
    public func chainID() async throws(ChippiPayError) -> StarknetChainID {
        StarknetChainID(try await request("starknet_chainId", EmptyParams(), as: Felt.self))
    }

    /// `starknet_call`.
    public func call(_ call: FunctionCall, block: BlockID = .latest) async throws(ChippiPayError) -> [Felt] {
        try await request("starknet_call", CallParams(request: call, block_id: block), as: [Felt].self)
    }

    /// `starknet_getNonce`.
    public func nonce(of address: Felt, block: BlockID = .pending) async throws(ChippiPayError) -> Felt {
        try await request("starknet_getNonce", NonceParams(block_id: block, contract_address: address), as: Felt.self)
    }

    /// `starknet_estimateFee` for one signed (or query-version) transaction.
    public func estimateFee(_ transaction: InvokeTransactionV3, skipValidate: Bool = true, block: BlockID = .pending)
        async throws(ChippiPayError) -> FeeEstimate
    {
        let answer = try await request(
            "starknet_estimateFee",
            EstimateParams(
                request: [transaction],
                simulation_flags: skipValidate ? ["SKIP_VALIDATE"] : [],
                block_id: block
            ),
            as: [FeeEstimate].self,
            idempotent: true
        )
        guard let first = answer.first else {
            throw ChippiPayError(.malformedResponse, "the node sent no fee estimate")
        }
        return first
    }

    /// `starknet_addInvokeTransaction`: the node's transaction hash.
    public func addInvokeTransaction(_ transaction: InvokeTransactionV3) async throws(ChippiPayError) -> Felt {
        struct Answer: Decodable { var transaction_hash: Felt }
        return try await request(
            "starknet_addInvokeTransaction",
            InvokeParams(invoke_transaction: transaction),
            as: Answer.self,
            idempotent: true
        ).transaction_hash
    }

    /// `starknet_getTransactionReceipt`.
    public func receipt(_ hash: Felt) async throws(ChippiPayError) -> TransactionReceipt {
        try await request(
            "starknet_getTransactionReceipt",
            HashParams(transaction_hash: hash),
            as: TransactionReceipt.self
        )
    }

    /// `starknet_getTransactionStatus`.
    public func status(_ hash: Felt) async throws(ChippiPayError) -> TransactionStatus {
        try await request(
            "starknet_getTransactionStatus",
            HashParams(transaction_hash: hash),
            as: TransactionStatus.self
        )
    }

    // MARK: Wire

    struct EmptyParams: Encodable {}
    struct CallParams: Encodable {
        var request: FunctionCall
        var block_id: BlockID
    }
    struct NonceParams: Encodable {
        var block_id: BlockID
        var contract_address: Felt
    }
    struct EstimateParams: Encodable {
        var request: [InvokeTransactionV3]
        var simulation_flags: [String]
        var block_id: BlockID
    }
    struct InvokeParams: Encodable { var invoke_transaction: InvokeTransactionV3 }
    struct HashParams: Encodable { var transaction_hash: Felt }

    struct Envelope<Params: Encodable>: Encodable {
        var jsonrpc = "2.0"
        var method: String
        var params: Params
        var id: Int
    }

    struct Answer<Result: Decodable>: Decodable {
        struct RPCError: Decodable {
            var code: Int
            var message: String
            var data: RPCErrorData?
        }
        var result: Result?
        var error: RPCError?
    }

    /// The `data` of a node error: text, or an object whose text members are kept.
    struct RPCErrorData: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self.text = text
            } else if let object = try? container.decode([String: StringOrOther].self) {
                self.text = object.sorted { $0.key < $1.key }.compactMap { $0.value.text.map { "\($0)" } }
                    .joined(separator: "; ")
            } else {
                text = ""
            }
        }
    }

    struct StringOrOther: Decodable {
        var text: String?
        init(from decoder: any Decoder) throws {
            text = try? decoder.singleValueContainer().decode(String.self)
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    func request<Params: Encodable, Result: Decodable>(
        _ method: String,
        _ params: Params,
        as type: Result.Type,
        idempotent: Bool = true
    ) async throws(ChippiPayError) -> Result {
        let body: Data
        do {
            body = try Self.encoder.encode(Envelope(method: method, params: params, id: 1))
        } catch {
            throw ChippiPayError(.invalidInput, "the \(method) request could not be encoded")
        }
        var request = HTTPRequest(method: .post, url: url)
        request.headerFields[.contentType] = "application/json"
        request.headerFields[.accept] = "application/json"
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request, body: body, idempotent: idempotent)
        } catch let error as HTTPTransportError {
            throw ChippiPayError.from(error)
        } catch {
            throw ChippiPayError(.network, "the request was cancelled")
        }
        guard (200..<300).contains(response.status.code) else {
            let code: ChippiPayError.Code =
                switch response.status.code {
                case 429: .rateLimited
                case 500...: .serviceError
                case 401, 403: .credentialsInvalid
                default: .serviceUnavailable
                }
            throw ChippiPayError(
                code,
                "the Starknet node answered HTTP \(response.status.code)",
                status: response.status.code
            )
        }
        let answer: Answer<Result>
        do {
            answer = try JSONDecoder().decode(Answer<Result>.self, from: response.body)
        } catch {
            throw ChippiPayError(.malformedResponse, "the Starknet node sent an unreadable \(method) answer")
        }
        if let error = answer.error {
            logger.debug("starknet rpc error", metadata: ["method": "\(method)", "code": "\(error.code)"])
            throw ChippiPayError(
                .rpcError,
                String(error.message.prefix(200)),
                serverCode: String(error.code),
                reason: error.data.map { String($0.text.prefix(500)) }
            )
        }
        guard let result = answer.result else {
            throw ChippiPayError(.malformedResponse, "the Starknet node sent neither result nor error for \(method)")
        }
        return result
    }
}
