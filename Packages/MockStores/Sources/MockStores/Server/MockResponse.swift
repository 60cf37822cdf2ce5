public import Foundation
public import HTTPTypes

/// A response `MockStoreServer` sends: from a cassette, from a built-in endpoint, or from an auth check.
public struct MockResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPFields
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`Content-Type: application/json`), written canonically with exact numbers.
    public static func json(_ status: Int, _ value: JSONValue, headers: HTTPFields = [:]) -> MockResponse {
        var fields = headers
        if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return MockResponse(status: status, headers: fields, body: value.serialized())
    }

    /// The body parsed as JSON, or `nil`.
    public var json: JSONValue? { body.isEmpty ? nil : try? JSONValue(parsing: body) }
}
