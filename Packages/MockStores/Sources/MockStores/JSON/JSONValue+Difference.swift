import OpenCatCore

extension JSONValue {
    /// Where two values first differ, for "nearest interaction" messages.
    /// - Parameters:
    ///   - actual: the value that arrived.
    ///   - path: the path of `self` within its document (`"$"` for the root).
    /// - Returns: `nil` when equal; otherwise the path of the first difference and what was expected and found
    ///   there (object keys visited in sorted order).
    public func firstDifference(from actual: JSONValue, path: String = "$") -> String? {
        switch (self, actual) {
        case (.object(let expected), .object(let found)):
            for key in expected.keys.sorted() {
                let childPath = "\(path).\(key)"
                guard let foundValue = found[key] else {
                    return "\(childPath): missing (expected \(expected[key]!.brief))"
                }
                if let difference = expected[key]!.firstDifference(from: foundValue, path: childPath) {
                    return difference
                }
            }
            if let extra = found.keys.sorted().first(where: { expected[$0] == nil }) {
                return "\(path).\(extra): not expected (found \(found[extra]!.brief))"
            }
            return nil
        case (.array(let expected), .array(let found)):
            for (index, element) in expected.enumerated() {
                guard index < found.count else { return "\(path)[\(index)]: missing (expected \(element.brief))" }
                if let difference = element.firstDifference(from: found[index], path: "\(path)[\(index)]") {
                    return difference
                }
            }
            if found.count > expected.count {
                return "\(path)[\(expected.count)]: not expected (found \(found[expected.count].brief))"
            }
            return nil
        default:
            return self == actual ? nil : "\(path): expected \(brief), found \(actual.brief)"
        }
    }

    /// A short rendering for messages: scalars in full (strings cut at 60 characters), containers by size.
    var brief: String {
        switch self {
        case .object(let members): return "an object with \(members.count) member(s)"
        case .array(let elements): return "an array of \(elements.count)"
        case .string(let value):
            let cut = value.count > 60 ? String(value.prefix(60)) + "…" : value
            return JSONValue.string(cut).canonicalText
        default: return canonicalText
        }
    }
}
