import Foundation

extension Cassette {
    /// The placeholder names the cassette uses (`stripe.secretKey` for `{{stripe.secretKey}}`), in `input`,
    /// `config` and `interactions`.
    public var placeholderNames: Set<String> {
        var names = Set<String>()
        _ = try? substituting { name, _ in
            names.insert(name)
            return ""
        }
        return names
    }

    /// A copy with every `{{name}}` in the strings of `input`, `config` and `interactions` replaced.
    /// - Parameter variables: name → value.
    /// - Throws: ``CassetteError`` (with an empty file) naming the field of the first unknown placeholder.
    public func substituting(_ variables: [String: String]) throws -> Cassette {
        try substituting { name, field in
            guard let value = variables[name] else {
                throw CassetteError(file: source ?? "", field: field, message: "unknown placeholder {{\(name)}}")
            }
            return value
        }
    }

    private func substituting(_ resolve: (String, String) throws -> String) throws -> Cassette {
        try withoutActuallyEscaping(resolve) { resolve in try substituted(resolve) }
    }

    private func substituted(_ resolve: @escaping (String, String) throws -> String) throws -> Cassette {
        var copy = self
        let sub = { (text: String, field: String) throws -> String in try Self.replace(in: text, field: field, resolve)
        }
        copy.input.token = try sub(input.token, "input.token")
        copy.input.productId = try input.productId.map { try sub($0, "input.productId") }
        copy.input.transactionId = try input.transactionId.map { try sub($0, "input.transactionId") }
        copy.input.context = try Self.map(input.context, field: "input.context", sub)
        for key in config.keys {
            copy.config[key] = try Self.replace(in: config[key]!, field: "config.\(key)", resolve)
        }
        for (index, interaction) in interactions.enumerated() {
            let base = "interactions[\(index)]"
            var request = interaction.request
            request.path = try sub(request.path, "\(base).request.path")
            request.query = try request.query.map { try Self.map($0, field: "\(base).request.query", sub) }
            request.headers = try request.headers.map { try Self.map($0, field: "\(base).request.headers", sub) }
            request.json = try request.json.map { try Self.replace(in: $0, field: "\(base).request.json", resolve) }
            request.form = try request.form.map { try Self.map($0, field: "\(base).request.form", sub) }
            request.bodyText = try request.bodyText.map { try sub($0, "\(base).request.bodyText") }
            if let params = request.rpc?.params {
                request.rpc?.params = try Self.replace(in: params, field: "\(base).request.rpc.params", resolve)
            }
            copy.interactions[index].request = request
            if var response = interaction.response {
                response.headers = try response.headers.map { try Self.map($0, field: "\(base).response.headers", sub) }
                response.json = try response.json.map {
                    try Self.replace(in: $0, field: "\(base).response.json", resolve)
                }
                response.bodyText = try response.bodyText.map { try sub($0, "\(base).response.bodyText") }
                copy.interactions[index].response = response
            }
        }
        return copy
    }

    private static func map(
        _ values: [String: String],
        field: String,
        _ sub: (String, String) throws -> String
    ) throws -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in values { result[key] = try sub(value, "\(field).\(key)") }
        return result
    }

    private static func map(
        _ values: NameValues,
        field: String,
        _ sub: (String, String) throws -> String
    ) throws -> NameValues {
        var result = NameValues()
        for (key, list) in values.fields {
            result.fields[key] = try list.enumerated().map { index, value in
                try sub(value, list.count == 1 ? "\(field).\(key)" : "\(field).\(key)[\(index)]")
            }
        }
        return result
    }

    private static func replace(
        in value: JSONValue,
        field: String,
        _ resolve: (String, String) throws -> String
    ) throws -> JSONValue {
        switch value {
        case .string(let text): return .string(try replace(in: text, field: field, resolve))
        case .array(let elements):
            return .array(try elements.enumerated().map { try replace(in: $1, field: "\(field)[\($0)]", resolve) })
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members { result[key] = try replace(in: member, field: "\(field).\(key)", resolve) }
            return .object(result)
        default: return value
        }
    }

    /// Replaces `{{name}}` (name: letters, digits, `.`, `_`, `-`) in a string.
    static func replace(in text: String, field: String, _ resolve: (String, String) throws -> String) throws -> String {
        guard text.contains("{{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else {
                result += rest[open.lowerBound...]
                return result
            }
            let name = afterOpen[..<close.lowerBound]
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-"))
            if !name.isEmpty, name.unicodeScalars.allSatisfy({ allowed.contains($0) && $0.isASCII }) {
                result += try resolve(String(name), field)
                rest = afterOpen[close.upperBound...]
            } else {
                result += "{{"
                rest = afterOpen
            }
        }
        result += rest
        return result
    }
}
