import Foundation
import HTTPTypes
import OpenCatCore

/// The loaded interactions in order, with their remaining answers: the matching engine of ``MockStoreServer``.
package struct InteractionScript: Sendable {
    package struct Entry: Sendable {
        package var cassette: String
        package var store: Store
        package var index: Int
        package var interaction: Cassette.Interaction
        package var used: Int

        package var remaining: Int { max(0, interaction.times - used) }

        package var reference: InteractionReference {
            InteractionReference(
                cassette: cassette,
                store: store,
                index: index,
                method: interaction.request.method,
                path: interaction.request.path,
                times: interaction.times,
                used: used
            )
        }
    }

    package private(set) var entries: [Entry] = []

    package init(_ cassettes: [Cassette] = []) {
        for cassette in cassettes { append(cassette) }
    }

    package mutating func append(_ cassette: Cassette) {
        for (index, interaction) in cassette.interactions.enumerated() {
            entries.append(
                Entry(cassette: cassette.name, store: cassette.store, index: index, interaction: interaction, used: 0)
            )
        }
    }

    /// The first entry with answers left whose pattern matches.
    package func match(_ request: MockRequest) -> Int? {
        entries.indices.first {
            entries[$0].remaining > 0 && Self.difference(entries[$0].interaction.request, request) == nil
        }
    }

    package mutating func consume(_ position: Int) -> Entry {
        entries[position].used += 1
        return entries[position]
    }

    /// Interactions that answered fewer requests than they must (``Cassette/Interaction/requiredTimes``).
    package var unused: [InteractionReference] {
        entries.filter { $0.used < $0.interaction.requiredTimes }.map(\.reference)
    }

    /// The nearest entry (same method and path, else same path, else the first with answers left, else the first)
    /// and the first field that differed.
    package func nearest(to request: MockRequest) -> (InteractionReference, String)? {
        let samePath = entries.filter { $0.interaction.request.path == request.path }
        let sameRoute = samePath.filter { $0.interaction.request.method == request.method }
        let candidates: [Entry] =
            [
                sameRoute.filter { $0.remaining > 0 }, sameRoute, samePath.filter { $0.remaining > 0 }, samePath,
                entries.filter { $0.remaining > 0 }, entries,
            ].first { !$0.isEmpty } ?? []
        guard let entry = candidates.first else { return nil }
        let difference =
            Self.difference(entry.interaction.request, request)
            ?? "already answered \(entry.used) time(s), the \"times\" it allows"
        return (entry.reference, difference)
    }

    /// The first part of the request that the pattern does not accept, or `nil` when it matches.
    package static func difference(_ pattern: Cassette.RequestPattern, _ request: MockRequest) -> String? {
        if pattern.method != request.method { return "method: expected \(pattern.method), found \(request.method)" }
        if pattern.path != request.path { return "path: expected \(pattern.path), found \(request.path)" }
        if let query = pattern.query {
            let expected = query.pairs.map { "\($0.name)=\($0.value)" }.sorted()
            let found = request.queryItems.map(\.description).sorted()
            if expected != found {
                return "query: expected \(list(expected)), found \(list(found))"
            }
        }
        if let headers = pattern.headers {
            for name in headers.keys.sorted() {
                let found = request.header(name)
                if found != headers[name] {
                    return
                        "headers.\(name): expected \"\(headers[name]!)\", found \(found.map { "\"\($0)\"" } ?? "none")"
                }
            }
        }
        if let json = pattern.json {
            guard let found = request.json else {
                return request.body.isEmpty ? "json: expected a JSON body, found no body" : "json: the body is not JSON"
            }
            if let difference = json.firstDifference(from: found) { return "json: \(difference)" }
        }
        if let form = pattern.form {
            let fields = request.formFields
            for name in form.fields.keys.sorted() {
                let found = fields.filter { $0.name == name }.map(\.value)
                if found != form.fields[name]! {
                    return "form.\(name): expected \(list(form.fields[name]!)), found \(list(found))"
                }
            }
        }
        if let rpc = pattern.rpc, let difference = rpc.difference(from: request.json) { return difference }
        if let text = pattern.bodyText, text != request.bodyText {
            return
                "bodyText: expected \(text.count) character(s) \(JSONValue.string(text).brief), found \(JSONValue.string(request.bodyText).brief)"
        }
        return nil
    }

    private static func list(_ values: [String]) -> String {
        values.isEmpty ? "none" : values.joined(separator: "&")
    }
}
