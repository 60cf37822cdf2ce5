extension Cassette {
    /// A JSON-RPC 2.0 request pattern: the body's `method` must equal ``method`` and its `params` must equal
    /// ``params`` canonically, except the members named in ``ignoring`` (dotted paths below `params`, such as
    /// `invoke_transaction.signature`: a signature is checked by the account contract, not by a cassette). The
    /// request's `id` is never compared; the answer echoes it with `"jsonrpc": "2.0"`.
    public struct JSONRPCPattern: Sendable, Hashable, Codable {
        /// The JSON-RPC method (`starknet_call`, …).
        public var method: String
        /// The params, compared canonically when given.
        public var params: JSONValue?
        /// Dotted paths below `params` left out of the comparison.
        public var ignoring: [String]?

        /// Creates a pattern.
        public init(method: String, params: JSONValue? = nil, ignoring: [String]? = nil) {
            self.method = method
            self.params = params
            self.ignoring = ignoring
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case method, params, ignoring
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try container.decode(String.self, forKey: .method)
            params = try container.decodeIfPresent(JSONValue.self, forKey: .params)
            ignoring = try container.decodeIfPresent([String].self, forKey: .ignoring)
        }

        /// The first difference between this pattern and a request body, or `nil` when it matches.
        public func difference(from body: JSONValue?) -> String? {
            guard case .object(let members)? = body else { return "rpc: the body is not a JSON-RPC object" }
            guard members["jsonrpc"] == .string("2.0") else { return "rpc.jsonrpc: expected \"2.0\"" }
            guard members["method"] == .string(method) else {
                return "rpc.method: expected \(method), found \(members["method"]?.brief ?? "none")"
            }
            guard let params else { return nil }
            let found = Self.removing(ignoring ?? [], from: members["params"] ?? .null)
            let expected = Self.removing(ignoring ?? [], from: params)
            return expected.firstDifference(from: found, path: "rpc.params")
        }

        static func removing(_ paths: [String], from value: JSONValue) -> JSONValue {
            var result = value
            for path in paths { result = remove(path.split(separator: ".").map(String.init)[...], from: result) }
            return result
        }

        private static func remove(_ path: ArraySlice<String>, from value: JSONValue) -> JSONValue {
            guard let head = path.first else { return value }
            switch value {
            case .object(var members):
                if path.count == 1 {
                    members.removeValue(forKey: head)
                } else if let child = members[head] {
                    members[head] = remove(path.dropFirst(), from: child)
                }
                return .object(members)
            case .array(let elements):
                // A path continues through every element of an array (`request.signature` in a list of requests).
                return .array(elements.map { remove(path, from: $0) })
            default:
                return value
            }
        }
    }
}

extension JSONValue {
    /// A JSON-RPC answer for a request body: `jsonrpc` and the request's `id` added to an object template.
    public func answeringJSONRPC(_ requestBody: JSONValue?) -> JSONValue {
        guard case .object(var members) = self else { return self }
        if case .object(let request)? = requestBody {
            members["id"] = request["id"] ?? .null
        } else {
            members["id"] = .null
        }
        members["jsonrpc"] = .string("2.0")
        return .object(members)
    }
}
