import Crypto
import Foundation
import HTTPTypes
import LLMKeyResolver
import LLMKeyResolverHTTP
import OpenCatCore

enum Keys {
    static let openai = "sk-proj-TESTabcdefghijklmnopqrstuv123456"
    static let anthropic = "sk-ant-api03-TESTabcdefghijklmnopqrstuvwxyz0123456789"
    static let google = "AIzaTESTabcdefghijklmnopqrstuvwxyz01234"
    static let systemOpenAI = "sk-SYSTEMopenaikey0000000000xyz123"
    static let systemAnthropic = "sk-ant-api03-SYSTEManthropickey000000000000000"
    static let systemGoogle = "AIzaSYSTEMgooglekey0000000000000000000"
    static let all = [openai, anthropic, google, systemOpenAI, systemAnthropic, systemGoogle]

    static func temporaryFile(_ name: String) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("llmkeys-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }

    static func cipher(_ ids: [String] = ["k1"], primary: String = "k1", seed: [String: SymmetricKey] = [:])
        throws -> LLMKeyCipher
    {
        var keys = seed
        for id in ids where keys[id] == nil { keys[id] = SymmetricKey(size: .bits256) }
        return try LLMKeyCipher(masterKeys: keys, primaryKeyId: primary)
    }

    static var systemKeys: [LLMProvider: Secret<String>] {
        LLMKeyResolver.systemKeys(from: [
            "OPENAI_API_KEY": systemOpenAI, "ANTHROPIC_API_KEY": systemAnthropic, "GOOGLE_API_KEY": systemGoogle,
        ])
    }
}

/// Routes requests to an ``LLMKeysAPI`` in process (the app client's tests).
final class APITransport: HTTPTransport {
    let api: LLMKeysAPI
    init(_ api: LLMKeysAPI) { self.api = api }

    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        let (head, data) = await api.handle(request, body: body ?? Data())
        return HTTPTransportResponse(head: head, body: data)
    }
}
