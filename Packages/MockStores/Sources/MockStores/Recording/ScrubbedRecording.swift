public import Foundation
import OpenCatCore

/// A recording turned into a cassette by ``SecretScrubber``: the cassette, the report of every replacement, and a
/// writer that checks, before writing, that no recorded secret and nothing live-looking is left.
public struct ScrubbedRecording: Sendable, CustomStringConvertible {
    /// The cassette, every secret replaced.
    public var cassette: Cassette
    /// Every value replaced, by kind, with its placeholder or stand-in and where it was found.
    public var replacements: [SecretReplacement]
    /// The values replaced, kept only to check the written text (never printed: `Secret` redacts itself).
    let secrets: [(value: Secret<String>, kind: SecretKind)]

    init(cassette: Cassette, replacements: [SecretReplacement], secrets: [(value: Secret<String>, kind: SecretKind)]) {
        self.cassette = cassette
        self.replacements = replacements
        self.secrets = secrets
    }

    /// The kinds of value replaced.
    public var kinds: Set<SecretKind> { Set(replacements.map(\.kind)) }

    /// The cassette as pretty-printed JSON (keys sorted), checked first.
    /// - Throws: ``RecordingError`` when a replaced value or a live-looking credential (see
    ///   ``SecretScrubber/liveCredentialPatterns``) is still in the text (the message names the kind, never the
    ///   value), or when the cassette breaks a rule of the format.
    public func encoded() throws(RecordingError) -> Data {
        do {
            try cassette.validate()
        } catch {
            throw RecordingError("the recorded cassette is not valid: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(cassette) } catch {
            throw RecordingError("the recorded cassette cannot be encoded: \(error)")
        }
        let text = String(decoding: data, as: UTF8.self)
        // Both spellings: as written, and with JSON's escapes (a value holding "/" or a quote).
        for secret in secrets
        where text.contains(secret.value.revealed) || text.contains(Self.jsonEscaped(secret.value.revealed)) {
            throw RecordingError("refusing to write the cassette: \(secret.kind) is still in it")
        }
        if let what = SecretScrubber.liveCredentials(in: text).first {
            throw RecordingError("refusing to write the cassette: it contains what looks like \(what)")
        }
        return data
    }

    /// Writes the cassette atomically (a temporary file renamed over `url`), creating missing folders; a reader never
    /// sees half a cassette.
    /// - Throws: ``RecordingError`` from ``encoded()``, or when the file cannot be written.
    public func write(to url: URL) throws(RecordingError) {
        let data = try encoded()
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try data.write(to: url, options: .atomic)
        } catch {
            throw RecordingError("cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    /// The report: one line per replaced value (`{{stripe.secretKey}} replaced a Stripe secret key at …`), never a
    /// value.
    public var report: String {
        guard !replacements.isEmpty else { return "No secrets found." }
        return replacements.map { "  " + $0.description }.joined(separator: "\n")
    }

    /// The report.
    public var description: String { report }

    static func jsonEscaped(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(text)) ?? Data()
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}

/// Why a recording could not be written. The message names kinds of value and files, never a secret.
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
