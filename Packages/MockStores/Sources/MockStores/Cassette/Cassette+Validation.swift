import OpenCatCore

extension Cassette {
    /// The longest `delay` fault, in seconds. A larger value is refused by ``validate()`` (and so by `fixtures lint`
    /// and every loader), so the mock server and the conformance runner never convert an out-of-range number.
    public static let maximumDelaySeconds: Double = 600
    /// The largest `retryAfter` of a `rateLimited` fault, in seconds (one day).
    public static let maximumRetryAfterSeconds = 86_400
    /// The largest `times` of an interaction.
    public static let maximumTimes = 1_000
    /// The largest `expect.quantity`.
    public static let maximumQuantity = 1_000_000
    /// The largest `expect.repeat` (how many times the conformance runner verifies the proof).
    public static let maximumRepeat: Int64 = 100

    /// Checks the rules of the format that types alone do not express.
    ///
    /// `format` is `opencat-cassette/1`; `store`, `scenario`, `input.kind` and `input.token` are not empty; every
    /// request has an upper-case method and a path that starts with `/` and carries no query; a request has at most
    /// one of `json`/`form`/`bodyText` and a response at most one of `json`/`bodyText`; `times` ≥ 1; a response is
    /// present unless the fault answers by itself; statuses are 100…599; a fault's kind is known and its fields
    /// belong to it (`seconds` 0…``maximumDelaySeconds`` only and always for `delay`, `retryAfter`
    /// 0…``maximumRetryAfterSeconds`` for `rateLimited`, `status` 500…599 for `serverError`); `times` is at most
    /// ``maximumTimes``; `expect` is `verified` with a `state` or `error` with a `code`, `quantity` is at most
    /// ``maximumQuantity``, `repeat` an integer 1…``maximumRepeat``, and a price amount is a decimal string with a
    /// three-letter currency. Every number is bounded, so nothing downstream converts an out-of-range value.
    /// - Throws: ``CassetteError`` naming the field (its `file` is ``source`` or empty).
    public func validate() throws {
        func fail(_ field: String, _ message: String) -> CassetteError {
            CassetteError(file: source ?? "", field: field, message: message)
        }
        guard format == Self.currentFormat else { throw fail("format", "expected \"\(Self.currentFormat)\"") }
        guard !store.rawValue.isEmpty else { throw fail("store", "must not be empty") }
        guard !scenario.isEmpty else { throw fail("scenario", "must not be empty") }
        guard !input.kind.rawValue.isEmpty else { throw fail("input.kind", "must not be empty") }
        guard !input.token.isEmpty else { throw fail("input.token", "must not be empty") }

        for (index, interaction) in interactions.enumerated() {
            try validate(interaction, at: "interactions[\(index)]", fail)
        }
        try validateExpectation(fail)
    }

    /// One interaction's request, response, repetitions and fault.
    private func validate(_ interaction: Interaction, at base: String, _ fail: (String, String) -> CassetteError)
        throws
    {
        let request = interaction.request
        guard !request.method.isEmpty, request.method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw fail("\(base).request.method", "expected an upper-case HTTP method")
        }
        guard request.path.hasPrefix("/") else { throw fail("\(base).request.path", "must start with \"/\"") }
        guard !request.path.contains("?") else {
            throw fail("\(base).request.path", "must not contain a query: put it in \"query\"")
        }
        let bodies = [request.json != nil, request.form != nil, request.bodyText != nil, request.rpc != nil]
            .filter { $0 }.count
        guard bodies <= 1 else { throw fail("\(base).request", "give at most one of json, form, bodyText, rpc") }
        if let rpc = request.rpc {
            guard request.method == "POST" else {
                throw fail("\(base).request.method", "a JSON-RPC call is a POST")
            }
            guard !rpc.method.isEmpty else { throw fail("\(base).request.rpc.method", "must not be empty") }
        }
        guard interaction.times >= 1 else { throw fail("\(base).times", "must be at least 1") }
        if let minTimes = interaction.minTimes, !(0...interaction.times).contains(minTimes) {
            throw fail("\(base).minTimes", "must be between 0 and times (\(interaction.times))")
        }
        guard interaction.times <= Self.maximumTimes else {
            throw fail("\(base).times", "must be at most \(Self.maximumTimes)")
        }

        if let response = interaction.response {
            guard (100...599).contains(response.status) else {
                throw fail("\(base).response.status", "expected an HTTP status between 100 and 599")
            }
            guard response.json == nil || response.bodyText == nil else {
                throw fail("\(base).response", "give at most one of json, bodyText")
            }
        }

        if let fault = interaction.fault {
            try validate(fault, at: "\(base).fault", fail)
        }
        let answersItself: [Fault.Kind] = [.timeout, .reset, .malformed, .rateLimited, .serverError]
        if interaction.response == nil, !answersItself.contains(interaction.fault?.kind ?? .delay) {
            throw fail("\(base).response", "missing required field")
        }
    }

    /// The expected outcome: verified with a state or an error with a code, known keys, bounded numbers, dates and
    /// exact prices.
    private func validateExpectation(_ fail: (String, String) -> CassetteError) throws {
        switch expect.outcome {
        case .verified:
            guard let state = expect.state, !state.isEmpty else {
                throw fail("expect.state", "required when outcome is \"verified\"")
            }
            guard expect.code == nil else { throw fail("expect.code", "only for outcome \"error\"") }
        case .error:
            guard let code = expect.code, !code.isEmpty else {
                throw fail("expect.code", "required when outcome is \"error\"")
            }
            guard expect.state == nil else { throw fail("expect.state", "only for outcome \"verified\"") }
        default:
            throw fail("expect.outcome", "expected \"verified\" or \"error\"")
        }
        if let unknown = expect.additional.keys.sorted().first {
            throw fail(
                "expect.\(unknown)",
                "unknown expectation (known: \(Expectation.knownKeys.joined(separator: ", ")))"
            )
        }
        if let quantity = expect.quantity, !(0...Self.maximumQuantity).contains(quantity) {
            throw fail("expect.quantity", "expected 0...\(Self.maximumQuantity)")
        }
        for (field, value) in [
            ("purchaseDate", expect.purchaseDate), ("expirationDate", expect.expirationDate),
            ("gracePeriodExpirationDate", expect.gracePeriodExpirationDate), ("verifiedAt", expect.verifiedAt),
        ] {
            if let value, Expectation.date(value) == nil {
                throw fail("expect.\(field)", "expected an ISO 8601 date such as \"2023-11-14T22:13:20.933Z\"")
            }
        }
        if let repeats = expect.repeat, !(1...Int(Self.maximumRepeat)).contains(repeats) {
            throw fail("expect.repeat", "expected an integer 1...\(Self.maximumRepeat)")
        }
        for (field, money) in [("price", expect.price), ("refundedAmount", expect.refundedAmount)] {
            guard let money else { continue }
            guard Self.isDecimalString(money.amount) else {
                throw fail("expect.\(field).amount", "expected a decimal string such as \"5.00\"")
            }
            guard money.currency.count == 3, money.currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw fail("expect.\(field).currency", "expected an ISO 4217 code such as \"USD\"")
            }
        }
    }

    private func validate(_ fault: Fault, at base: String, _ fail: (String, String) -> CassetteError) throws {
        guard Fault.Kind.known.contains(fault.kind) else {
            throw fail(
                "\(base).kind",
                "unknown fault \"\(fault.kind)\" (expected one of \(Fault.Kind.known.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        if fault.kind == .delay {
            guard let seconds = fault.seconds else { throw fail("\(base).seconds", "required for a delay") }
            guard seconds.isFinite, (0...Self.maximumDelaySeconds).contains(seconds) else {
                throw fail("\(base).seconds", "expected 0...\(Int(Self.maximumDelaySeconds)) seconds")
            }
        } else if fault.seconds != nil {
            throw fail("\(base).seconds", "only for kind \"delay\"")
        }
        if fault.kind == .rateLimited {
            if let retryAfter = fault.retryAfter, !(0...Self.maximumRetryAfterSeconds).contains(retryAfter) {
                throw fail("\(base).retryAfter", "expected 0...\(Self.maximumRetryAfterSeconds) seconds")
            }
        } else if fault.retryAfter != nil {
            throw fail("\(base).retryAfter", "only for kind \"rateLimited\"")
        }
        if fault.kind == .serverError {
            if let status = fault.status, !(500...599).contains(status) {
                throw fail("\(base).status", "expected a 5xx status")
            }
        } else if fault.status != nil {
            throw fail("\(base).status", "only for kind \"serverError\"")
        }
    }

    static func isDecimalString(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.hasPrefix("-") { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            return false
        }
        return true
    }
}
