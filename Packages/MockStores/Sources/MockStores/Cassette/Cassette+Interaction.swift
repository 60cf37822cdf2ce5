extension Cassette {
    /// One scripted exchange: the request it answers, the response, an optional fault, and how many times it answers.
    public struct Interaction: Sendable, Hashable, Codable {
        /// What an incoming request must look like to be answered by this interaction.
        public var request: RequestPattern
        /// The answer (optional when ``fault`` answers by itself: timeout, reset, malformed, rateLimited, serverError).
        public var response: ResponseTemplate?
        /// A fault applied instead of, or before, the response.
        public var fault: Fault?
        /// How many requests this interaction answers (default 1).
        public var times: Int
        /// How many requests it must answer for the case to pass (default ``times``: every answer is used). Lower
        /// only where a client may legitimately stop early (a fault it may retry fewer times).
        public var minTimes: Int?
        /// A note for readers of the cassette.
        public var description: String?

        /// Creates an interaction.
        public init(
            request: RequestPattern,
            response: ResponseTemplate? = nil,
            fault: Fault? = nil,
            times: Int = 1,
            minTimes: Int? = nil,
            description: String? = nil
        ) {
            self.request = request
            self.response = response
            self.fault = fault
            self.times = times
            self.minTimes = minTimes
            self.description = description
        }

        /// The fewest requests it must answer: ``minTimes``, else ``times``.
        public var requiredTimes: Int { minTimes ?? times }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case request, response, fault, times, minTimes, description
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            request = try container.decode(RequestPattern.self, forKey: .request)
            response = try container.decodeIfPresent(ResponseTemplate.self, forKey: .response)
            fault = try container.decodeIfPresent(Fault.self, forKey: .fault)
            times = try container.decodeIfPresent(Int.self, forKey: .times) ?? 1
            minTimes = try container.decodeIfPresent(Int.self, forKey: .minTimes)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(request, forKey: .request)
            try container.encodeIfPresent(response, forKey: .response)
            try container.encodeIfPresent(fault, forKey: .fault)
            if times != 1 { try container.encode(times, forKey: .times) }
            try container.encodeIfPresent(minTimes, forKey: .minTimes)
            try container.encodeIfPresent(description, forKey: .description)
        }
    }
}
