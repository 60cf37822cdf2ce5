import Foundation

/// Why a cassette could not be loaded: the file, the JSON field path and the problem, printed as
/// `Fixtures/stripe/refunded.json: interactions[2].response.status: expected an integer`.
public struct CassetteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, as given to the loader (or the display name passed to it).
    public var file: String
    /// The JSON path of the offending field (`interactions[2].response.status`), or `(root)`.
    public var field: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, field: String, message: String) {
        self.file = file
        self.field = field
        self.message = message
    }

    public var description: String { "\(file): \(field): \(message)" }
}

extension CassetteError {
    /// Formats a coding path as `interactions[2].response.status`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(root)" : text
    }

    /// Turns a `DecodingError` into a cassette error naming the field.
    static func from(_ error: DecodingError, file: String) -> CassetteError {
        switch error {
        case .typeMismatch(let type, let context):
            return CassetteError(file: file, field: path(context.codingPath), message: "expected \(describe(type))")
        case .valueNotFound(let type, let context):
            return CassetteError(
                file: file,
                field: path(context.codingPath),
                message: "expected \(describe(type)), found null"
            )
        case .keyNotFound(let key, let context):
            return CassetteError(
                file: file,
                field: path(context.codingPath + [key]),
                message: "missing required field"
            )
        case .dataCorrupted(let context):
            let message: String
            if context.codingPath.isEmpty {
                let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
                message = "not valid JSON: \(context.debugDescription)\(underlying)"
            } else {
                message = context.debugDescription
            }
            return CassetteError(file: file, field: path(context.codingPath), message: message)
        @unknown default:
            return CassetteError(file: file, field: "(root)", message: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is [String: String].Type: return "an object of strings"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") && !name.contains(":") { return "an array" }
            if name.hasPrefix("Dictionary") || name.contains(":") { return "an object" }
            return "an object"
        }
    }
}
