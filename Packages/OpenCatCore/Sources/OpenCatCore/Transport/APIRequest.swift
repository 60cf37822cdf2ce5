public import Foundation
public import HTTPTypes

/// Building requests to an API served under a base URL: the one URL builder and percent-encoder of OpenCat's
/// clients.
///
/// The base URL's own path is kept as a prefix, so an API can be served under a path (a proxy, MockStores):
/// `https://h/x/` and `v1/a` give `https://h/x/v1/a`.
public enum APIRequest {
    /// A request to `path` under `baseURL`, with a query.
    /// - Parameters:
    ///   - method: the method.
    ///   - baseURL: the API's base URL; its path (with or without a trailing `/`) is kept as a prefix, its query
    ///     and fragment are dropped.
    ///   - path: the path under the base URL, already percent-encoded (encode each variable segment with
    ///     ``percentEncoded(_:)``); a leading `/` is optional.
    ///   - query: names and values, each percent-encoded by ``percentEncoded(_:)``, in this order.
    /// - Returns: the request, with no header fields.
    public static func make(
        _ method: HTTPRequest.Method,
        baseURL: URL,
        path: String,
        query: [(String, String)] = []
    ) -> HTTPRequest {
        let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        var authority = components?.percentEncodedHost ?? ""
        // An IPv6 literal is bracketed (some Foundations give `percentEncodedHost` with its brackets, some without).
        if authority.contains(":"), !authority.hasPrefix("[") { authority = "[\(authority)]" }
        if let port = components?.port { authority += ":\(port)" }
        var prefix = components?.percentEncodedPath ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let tail = path.hasPrefix("/") ? path : "/" + path
        let encodedQuery = Self.query(query)
        return HTTPRequest(
            method: method,
            scheme: components?.scheme ?? "https",
            authority: authority,
            path: prefix + tail + (encodedQuery.isEmpty ? "" : "?" + encodedQuery)
        )
    }

    /// Text percent-encoded for a path segment or a query name or value: only RFC 3986's unreserved characters
    /// (`A–Z a–z 0–9 - . _ ~`) are kept, everything else (`/`, `?`, `&`, `=`, `+`, spaces, non-ASCII) is encoded.
    public static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A query string (`a=1&b=2`, without the `?`), every name and value percent-encoded.
    public static func query(_ items: [(String, String)]) -> String {
        items.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
}
