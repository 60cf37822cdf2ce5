public import Foundation
import MockStores
public import OpenCatCore
import OpenCatTesting

/// The scenario catalogue (`Fixtures/scenarios.json`): every scenario's expected normalized outcome, defined once
/// for every store, and the stores for which a scenario cannot exist, with the reason.
public struct ScenarioCatalogue: Sendable, Codable {
    /// One scenario.
    public struct Scenario: Sendable, Codable, Hashable {
        /// The scenario id (`"one-time-paid"`), used as the cassette's `scenario`.
        public var id: String
        /// What it covers.
        public var description: String
        /// The outcome every applicable store must produce (the keys of a cassette's `expect`).
        public var expect: [String: ExpectValue]
        /// Store → why the scenario cannot exist for it.
        public var notApplicable: [String: String]
    }

    /// A scalar value of an expectation.
    public enum ExpectValue: Sendable, Codable, Hashable, CustomStringConvertible {
        /// A string value.
        case string(String)
        /// A boolean value.
        case bool(Bool)
        /// A whole number.
        case int(Int)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            }
        }

        public var description: String {
            switch self {
            case .string(let value): return value
            case .bool(let value): return String(value)
            case .int(let value): return String(value)
            }
        }
    }

    /// The catalogue format (`opencat-scenarios/1`).
    public var format: String
    /// The stores the catalogue speaks for.
    public var stores: [Store]
    /// The scenarios, in report order.
    public var scenarios: [Scenario]

    /// Loads a catalogue file.
    /// - Throws: ``ConformanceError`` naming the file when it cannot be read.
    public static func load(from url: URL) throws -> ScenarioCatalogue {
        let data: Data
        do {
            data = try Cassette.readFile(at: url)  // the same 8 MiB cap as cassettes, checked before reading
        } catch {
            throw ConformanceError(
                "\(url.path): cannot read the scenario catalogue (\((error as? CassetteError)?.message ?? "unreadable"))"
            )
        }
        do {
            let catalogue = try JSONDecoder().decode(ScenarioCatalogue.self, from: data)
            guard catalogue.format == "opencat-scenarios/1" else {
                throw ConformanceError("\(url.lastPathComponent): format: expected opencat-scenarios/1")
            }
            return catalogue
        } catch let error as ConformanceError {
            throw error
        } catch {
            throw ConformanceError("\(url.lastPathComponent): not a valid scenario catalogue (\(error))")
        }
    }

    /// The scenario with an id.
    public func scenario(_ id: String) -> Scenario? { scenarios.first { $0.id == id } }

    /// Why a scenario does not apply to a store, or `nil` if it does.
    public func notApplicableReason(store: Store, scenario: String) -> String? {
        self.scenario(scenario)?.notApplicable[store.rawValue]
    }
}

/// A problem with the suite's inputs (catalogue, cassettes, configuration).
public struct ConformanceError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file and the field.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
