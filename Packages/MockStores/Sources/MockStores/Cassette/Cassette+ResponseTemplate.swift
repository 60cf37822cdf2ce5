extension Cassette {
    /// The response side of an interaction.
    public struct ResponseTemplate: Sendable, Hashable, Codable {
        /// The HTTP status.
        public var status: Int
        /// Response header fields. `Content-Type: application/json` is added for a ``json`` body when absent.
        public var headers: [String: String]?
        /// A JSON body, written canonically with exact numbers.
        public var json: JSONValue?
        /// A raw body, written as is.
        public var bodyText: String?

        /// Creates a response.
        public init(status: Int, headers: [String: String]? = nil, json: JSONValue? = nil, bodyText: String? = nil) {
            self.status = status
            self.headers = headers
            self.json = json
            self.bodyText = bodyText
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case status, headers, json, bodyText
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decode(Int.self, forKey: .status)
            headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
            json = try container.decodeIfPresent(JSONValue.self, forKey: .json)
            bodyText = try container.decodeIfPresent(String.self, forKey: .bodyText)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(headers, forKey: .headers)
            try container.encodeIfPresent(json, forKey: .json)
            try container.encodeIfPresent(bodyText, forKey: .bodyText)
        }
    }
}
