public import Foundation

/// The JSON settings OpenCat uses for its own formats (cache, server API) and every JSON API client
/// (``JSONAPIClient``): sorted keys, dates written as ISO 8601 with milliseconds and read as RFC 3339 (any number
/// of fraction digits up to nine, `Z` or an offset).
public enum JSONCoding {
    /// A new encoder: sorted keys, ISO 8601 dates with milliseconds.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }

    /// A new decoder: dates as ISO 8601 / RFC 3339 strings.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            // RFC 3339 first: exact to nine fraction digits (Foundation's style keeps three).
            if let date = RFC3339Timestamp.date(from: text) { return date }
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }

    /// A decoding error's path and kind, without the data it was looking at (safe to log and to put in errors).
    public static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: type(of: error)) }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \(path(context).isEmpty ? "" : path(context) + ".")\(key.stringValue)"
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        case .dataCorrupted(let context): return "corrupt data at \(path(context).isEmpty ? "root" : path(context))"
        @unknown default: return "decoding failed"
        }
    }
}
