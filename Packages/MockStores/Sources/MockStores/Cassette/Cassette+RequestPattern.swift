extension Cassette {
    /// The request side of an interaction. Method and path always match exactly; every other part is compared only
    /// when given.
    public struct RequestPattern: Sendable, Hashable, Codable {
        /// The HTTP method (`GET`, `POST`, …), compared exactly.
        public var method: String
        /// The path as sent on the wire (percent-encoded), without the query; compared exactly.
        public var path: String
        /// The query: when given, the request's decoded `name=value` pairs must equal these as a multiset.
        public var query: NameValues?
        /// Header fields that must be present with exactly these values (names case-insensitive). Headers not listed
        /// here (authorization, user agent, date, …) are ignored.
        public var headers: [String: String]?
        /// A JSON body, compared canonically (key order, whitespace and number spelling ignored).
        public var json: JSONValue?
        /// An `application/x-www-form-urlencoded` body: every field listed must be present with these values;
        /// fields not listed (a signed assertion, a key) are ignored.
        public var form: NameValues?
        /// A raw body, compared exactly.
        public var bodyText: String?
        /// A JSON-RPC body, matched on method and params (its `id` ignored and echoed in the answer).
        public var rpc: JSONRPCPattern?

        /// Creates a pattern.
        public init(
            method: String,
            path: String,
            query: NameValues? = nil,
            headers: [String: String]? = nil,
            json: JSONValue? = nil,
            form: NameValues? = nil,
            bodyText: String? = nil,
            rpc: JSONRPCPattern? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.json = json
            self.form = form
            self.bodyText = bodyText
            self.rpc = rpc
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case method, path, query, headers, json, form, bodyText, rpc
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try container.decode(String.self, forKey: .method)
            path = try container.decode(String.self, forKey: .path)
            query = try container.decodeIfPresent(NameValues.self, forKey: .query)
            headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
            json = try container.decodeIfPresent(JSONValue.self, forKey: .json)
            form = try container.decodeIfPresent(NameValues.self, forKey: .form)
            bodyText = try container.decodeIfPresent(String.self, forKey: .bodyText)
            rpc = try container.decodeIfPresent(JSONRPCPattern.self, forKey: .rpc)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(method, forKey: .method)
            try container.encode(path, forKey: .path)
            try container.encodeIfPresent(query, forKey: .query)
            try container.encodeIfPresent(headers, forKey: .headers)
            try container.encodeIfPresent(json, forKey: .json)
            try container.encodeIfPresent(form, forKey: .form)
            try container.encodeIfPresent(bodyText, forKey: .bodyText)
            try container.encodeIfPresent(rpc, forKey: .rpc)
        }
    }
}
