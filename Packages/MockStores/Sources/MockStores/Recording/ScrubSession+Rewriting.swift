import Foundation
import HTTPTypes
import OpenCatCore

extension ScrubSession {
    /// Characters a percent-encoded path keeps as they are (RFC 3986 unreserved).
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// `text` with every learned value replaced (leftmost first, the longest at one place), noting `location` for
    /// each value replaced.
    /// - Parameter encodedForms: also replace values written percent-encoded (paths).
    mutating func redact(_ text: String, at location: String, encodedForms: Bool = false) -> String {
        guard !text.isEmpty else { return text }
        var hits: [(range: Range<String.Index>, replacement: String, entry: Int)] = []
        for (index, entry) in entries.enumerated() {
            var forms = [entry.value]
            if encodedForms, let encoded = entry.value.addingPercentEncoding(withAllowedCharacters: Self.unreserved),
                encoded != entry.value
            {
                forms.append(encoded)
            }
            for form in forms {
                for range in text.ranges(of: form) { hits.append((range, entry.replacement, index)) }
            }
        }
        guard !hits.isEmpty else { return text }
        hits.sort {
            $0.range.lowerBound != $1.range.lowerBound
                ? $0.range.lowerBound < $1.range.lowerBound : $0.range.upperBound > $1.range.upperBound
        }
        var result = ""
        var cursor = text.startIndex
        for hit in hits where hit.range.lowerBound >= cursor {
            result += text[cursor..<hit.range.lowerBound]
            result += hit.replacement
            cursor = hit.range.upperBound
            note(location, at: hit.entry)
        }
        result += text[cursor...]
        return result
    }

    /// A JSON value with every string redacted.
    mutating func redact(_ value: JSONValue, at location: String) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(redact(text, at: location))
        case .array(let elements):
            var result: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                result.append(redact(element, at: "\(location)[\(index)]"))
            }
            return .array(result)
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                result[key] = redact(member, at: "\(location).\(key)")
            }
            return .object(result)
        default:
            return value
        }
    }

    /// The interaction of one exchange: the request pattern (method, path, query, the recorded headers, the body)
    /// and the response (status, the recorded headers, the body), every secret replaced.
    mutating func interaction(from exchange: RecordedExchange, index: Int) -> Cassette.Interaction {
        let base = "interactions[\(index)]"
        let request = exchange.request
        var pattern = Cassette.RequestPattern(
            method: request.method.uppercased(),
            path: redact(request.path, at: "\(base).request.path", encodedForms: true)
        )
        let items = request.queryItems
        if !items.isEmpty {
            var fields: [String: [String]] = [:]
            for item in items {
                fields[item.name, default: []].append(redact(item.value, at: "\(base).request.query.\(item.name)"))
            }
            pattern.query = Cassette.NameValues(fields)
        }
        var headers: [String: String] = [:]
        for name in scrubber.recordedRequestHeaders {
            if let value = request.header(name) { headers[name] = redact(value, at: "\(base).request.headers.\(name)") }
        }
        pattern.headers = headers.isEmpty ? nil : headers
        if !request.body.isEmpty { requestBody(request, into: &pattern, base: base) }
        return Cassette.Interaction(request: pattern, response: response(exchange.response, base: base))
    }

    /// The request body as a pattern: a form (a signed assertion left out: it is new on every run), JSON, or text.
    mutating func requestBody(_ request: MockRequest, into pattern: inout Cassette.RequestPattern, base: String) {
        if request.header("Content-Type")?.lowercased().contains("x-www-form-urlencoded") == true {
            var fields: [String: [String]] = [:]
            for field in request.formFields {
                let location = "\(base).request.form.\(field.name)"
                if learnedKind(of: field.value) == .jwt {
                    noteValue(field.value, at: location + " (not recorded: signed anew on every run)")
                    continue
                }
                fields[field.name, default: []].append(redact(field.value, at: location))
            }
            pattern.form = Cassette.NameValues(fields)
        } else if let json = request.json {
            pattern.json = redact(json, at: "\(base).request.json")
        } else {
            pattern.bodyText = redact(request.bodyText, at: "\(base).request.bodyText")
        }
    }

    /// The response template: status, the recorded headers, JSON or text.
    mutating func response(_ response: MockResponse, base: String) -> Cassette.ResponseTemplate {
        var template = Cassette.ResponseTemplate(status: (100...599).contains(response.status) ? response.status : 500)
        var headers: [String: String] = [:]
        for name in scrubber.recordedResponseHeaders {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let values = response.headers[values: fieldName]
            if !values.isEmpty {
                headers[name] = redact(values.joined(separator: ", "), at: "\(base).response.headers.\(name)")
            }
        }
        template.headers = headers.isEmpty ? nil : headers
        if let json = response.json {
            template.json = redact(json, at: "\(base).response.json")
        } else if !response.body.isEmpty {
            template.bodyText = redact(String(decoding: response.body, as: UTF8.self), at: "\(base).response.bodyText")
        }
        return template
    }

    /// Notes a location for a learned value.
    mutating func noteValue(_ value: String, at location: String) {
        if let index = entries.firstIndex(where: { $0.value == value }) { note(location, at: index) }
    }

    /// The proof, scrubbed.
    mutating func scrubbed(_ input: Cassette.Input) -> Cassette.Input {
        var copy = input
        copy.token = redact(input.token, at: "input.token")
        if let productId = input.productId { copy.productId = redact(productId, at: "input.productId") }
        if let transactionId = input.transactionId {
            copy.transactionId = redact(transactionId, at: "input.transactionId")
        }
        for (key, value) in input.context.sorted(by: { $0.key < $1.key }) {
            copy.context[key] = redact(value, at: "input.context.\(key)")
        }
        return copy
    }

    /// The adapter settings, scrubbed, with the store's credential settings as placeholders and the App Store
    /// payloads to sign under `signedPayloads`.
    mutating func scrubbed(config: [String: JSONValue]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in config.sorted(by: { $0.key < $1.key }) { result[key] = redact(value, at: "config.\(key)") }
        for (key, placeholder) in credentialSettings where result[key] == nil { result[key] = .string(placeholder) }
        if !signedPayloads.isEmpty {
            var payloads = result["signedPayloads"]?.objectValue ?? [:]
            for (name, payload) in signedPayloads.sorted(by: { $0.key < $1.key }) where payloads[name] == nil {
                payloads[name] = redact(payload, at: "config.signedPayloads.\(name)")
            }
            result["signedPayloads"] = .object(payloads)
        }
        return result
    }

    /// The store's credential settings, as the conformance adapters read them from a cassette's `config`.
    var credentialSettings: [String: String] {
        switch store {
        case .stripe: ["secretKey": "{{stripe.secretKey}}"]
        case .paypal: ["clientId": "{{paypal.clientId}}", "clientSecret": "{{paypal.clientSecret}}"]
        case .google: ["clientEmail": "{{google.clientEmail}}"]
        case .apple:
            ["issuerId": "{{apple.issuerId}}", "keyId": "{{apple.keyId}}", "privateKey": "{{apple.privateKey}}"]
        case .steam: ["publisherKey": "{{steam.publisherKey}}"]
        default: [:]
        }
    }
}
