import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its named parts: what a package registry's publish endpoint
/// receives (`source-archive`, `source-archive-signature`, `metadata`, `metadata-signature`).
struct MultipartForm: Sendable {
    /// One part: its name, headers (lowercased names) and bytes (base64-decoded when the part says so).
    struct Part: Sendable {
        var name: String
        var headers: [String: String]
        var body: Data
    }

    var parts: [Part]

    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    /// A form's body and `Content-Type` from named parts (name, content type, bytes), sent as binary.
    static func encode(_ parts: [(name: String, type: String, data: Data)]) -> (body: Data, contentType: String) {
        let boundary = "opencat-\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\"\r\n".utf8))
            body.append(Data("Content-Type: \(part.type)\r\nContent-Transfer-Encoding: binary\r\n\r\n".utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return (body, "multipart/form-data;boundary=\"\(boundary)\"")
    }

    /// The boundary a `Content-Type: multipart/form-data; boundary=…` names (quoted or not).
    static func boundary(_ contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Splits `body` at `--boundary` lines; nil when it is not a well-formed form (no closing boundary, a part
    /// without headers or without a name).
    init?(_ body: Data, boundary: String) {
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n\r\n".utf8)
        var parts: [Part] = []
        var cursor = body.startIndex
        guard let first = body.range(of: delimiter, in: cursor..<body.endIndex) else { return nil }
        cursor = first.upperBound
        while true {
            // After a delimiter: "--" ends the form, CRLF starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { break }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else { return nil }
            cursor += 2
            guard let headerEnd = body.range(of: separator, in: cursor..<body.endIndex),
                let next = body.range(of: Data("\r\n".utf8) + delimiter, in: headerEnd.upperBound..<body.endIndex)
            else { return nil }
            let headers = Self.headers(body[cursor..<headerEnd.lowerBound])
            guard let name = Self.name(headers["content-disposition"] ?? "") else { return nil }
            var content = Data(body[headerEnd.upperBound..<next.lowerBound])
            if headers["content-transfer-encoding"]?.lowercased() == "base64" {
                guard let decoded = Data(base64Encoded: content, options: .ignoreUnknownCharacters) else { return nil }
                content = decoded
            }
            parts.append(Part(name: name, headers: headers, body: content))
            cursor = next.upperBound
        }
        self.parts = parts
    }

    static func headers(_ data: Data) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased().trimmingCharacters(in: .whitespaces)] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// `form-data; name="source-archive"` → `source-archive`.
    static func name(_ disposition: String) -> String? {
        for piece in disposition.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) })
        where piece.lowercased().hasPrefix("name=") {
            return piece.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
