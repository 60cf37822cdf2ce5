public import Foundation
public import HTTPTypes

/// A request as `MockStoreServer` received it, kept for assertions (`MockStoreServer/receivedRequests`).
public struct MockRequest: Sendable, Hashable {
    /// A decoded `name=value` pair of a query or form body.
    public struct Field: Sendable, Hashable, CustomStringConvertible {
        /// The decoded name.
        public var name: String
        /// The decoded value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        public var description: String { "\(name)=\(value)" }
    }

    /// The HTTP method (`GET`, `POST`, …).
    public var method: String
    /// The path as sent on the wire (percent-encoded), without the query.
    public var path: String
    /// The raw query (after `?`), if any.
    public var query: String?
    /// The header fields.
    public var headers: HTTPFields
    /// The body.
    public var body: Data
    /// When it arrived, on the server's clock.
    public var receivedAt: Date

    /// Creates a request.
    public init(
        method: String,
        path: String,
        query: String? = nil,
        headers: HTTPFields = [:],
        body: Data = Data(),
        receivedAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    /// The decoded query pairs, in order (`+` reads as a space).
    public var queryItems: [Field] { query.map(FormURLEncoding.decode) ?? [] }

    /// The decoded `application/x-www-form-urlencoded` body pairs, in order.
    public var formFields: [Field] { FormURLEncoding.decode(String(decoding: body, as: UTF8.self)) }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON, or `nil` when it is not JSON.
    public var json: JSONValue? { body.isEmpty ? nil : try? JSONValue(parsing: body) }

    /// The value of a header (several fields with the name are joined with `, `), or `nil`.
    /// - Parameter name: the name, case-insensitive.
    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        let values = headers[values: fieldName]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// The first value of a form field.
    public func formValue(_ name: String) -> String? { formFields.first { $0.name == name }?.value }

    /// `METHOD /path?query`, for messages.
    public var line: String { "\(method) \(path)\(query.map { "?" + $0 } ?? "")" }
}
