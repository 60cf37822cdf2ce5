extension Cassette {
    /// A deterministic failure an interaction injects (no randomness anywhere).
    public struct Fault: Sendable, Hashable, Codable {
        /// What goes wrong. Extensible raw value; ``Cassette/validate()`` refuses kinds this version does not know.
        public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// Wait ``Fault/seconds`` on the server's clock, then answer with the response.
            public static let delay = Kind(rawValue: "delay")
            /// Never answer: hold the request until the client gives up or the server stops.
            public static let timeout = Kind(rawValue: "timeout")
            /// Close the connection without an HTTP response.
            public static let reset = Kind(rawValue: "reset")
            /// Answer 200 (or the response's status) with a truncated JSON body.
            public static let malformed = Kind(rawValue: "malformed")
            /// Answer 429 with `Retry-After: retryAfter` (and the response's body and headers when given).
            public static let rateLimited = Kind(rawValue: "rateLimited")
            /// Answer ``Fault/status`` (default 500) with the response's body and headers when given.
            public static let serverError = Kind(rawValue: "serverError")

            /// Every kind this version implements.
            public static let known: [Kind] = [.delay, .timeout, .reset, .malformed, .rateLimited, .serverError]
        }

        /// What goes wrong.
        public var kind: Kind
        /// `delay`: how long to wait, in seconds (fractions allowed), on the server's `WallClock`.
        public var seconds: Double?
        /// `rateLimited`: the `Retry-After` value in seconds (default 1).
        public var retryAfter: Int?
        /// `serverError`: the status (default 500).
        public var status: Int?

        /// Creates a fault.
        public init(kind: Kind, seconds: Double? = nil, retryAfter: Int? = nil, status: Int? = nil) {
            self.kind = kind
            self.seconds = seconds
            self.retryAfter = retryAfter
            self.status = status
        }

        /// Wait, then answer normally.
        public static func delay(seconds: Double) -> Fault { Fault(kind: .delay, seconds: seconds) }
        /// Never answer.
        public static let timeout = Fault(kind: .timeout)
        /// Close the connection without a response.
        public static let reset = Fault(kind: .reset)
        /// A truncated JSON body.
        public static let malformed = Fault(kind: .malformed)
        /// 429 with `Retry-After`.
        public static func rateLimited(retryAfter: Int = 1) -> Fault {
            Fault(kind: .rateLimited, retryAfter: retryAfter)
        }
        /// A 5xx status.
        public static func serverError(status: Int = 500) -> Fault { Fault(kind: .serverError, status: status) }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case kind, seconds, retryAfter, status
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(Kind.self, forKey: .kind)
            seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
            retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            status = try container.decodeIfPresent(Int.self, forKey: .status)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encodeIfPresent(seconds, forKey: .seconds)
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
            try container.encodeIfPresent(status, forKey: .status)
        }
    }
}
