import Foundation

/// The wait ran out: the condition a test waited for never held within its ceiling.
///
/// Its description names what was awaited, where, and how long the wait lasted, so a failed run says what did not
/// happen instead of timing out a whole suite.
public struct WaitTimedOut: Error, CustomStringConvertible, Sendable {
    /// What the test waited for, in its own words.
    public var condition: String
    /// The ceiling the wait gave up at.
    public var ceiling: Duration
    /// Where the wait was written (`File.swift:line`).
    public var location: String

    public var description: String {
        "waited \(ceiling) for \(condition.isEmpty ? "a condition" : condition) at \(location); it never held"
    }
}

/// Waits until `produce` returns a value, and returns it: the one way a test waits for an asynchronous effect (a
/// webhook delivered, a row written, a request received, a child process listening).
///
/// The condition is checked at once, then again after each short pause (1 ms growing to 50 ms), on the real clock:
/// the pauses are the polling interval, never a guess at how long the effect takes. A condition that does not hold
/// within `ceiling` throws ``WaitTimedOut`` (the test fails loudly, naming `condition`), so the ceiling is generous:
/// a loaded one-core machine must never reach it when the effect happens. An error thrown by `produce` ends the
/// wait with that error; cancelling the waiting task ends it with `CancellationError`.
///
/// ```swift
/// let order = try await waitFor("the webhook's order") { try await ledger.webOrder(reference: id) }
/// ```
public func waitFor<Value>(
    _ condition: @autoclosure () -> String = "",
    within ceiling: Duration = .seconds(120),
    fileID: String = #fileID,
    line: Int = #line,
    _ produce: () async throws -> Value?
) async throws -> Value {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: ceiling)
    var pause = Duration.milliseconds(1)
    while true {
        if let value = try await produce() { return value }
        if clock.now >= deadline {
            throw WaitTimedOut(condition: condition(), ceiling: ceiling, location: "\(fileID):\(line)")
        }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(50))
    }
}

/// Waits until `condition` holds: ``waitFor(_:within:fileID:line:_:)`` for a condition with no value.
///
/// ```swift
/// try await waitUntil("every delivery recorded") { checkout.deliveries.count == rounds }
/// ```
public func waitUntil(
    _ condition: @autoclosure () -> String = "",
    within ceiling: Duration = .seconds(120),
    fileID: String = #fileID,
    line: Int = #line,
    _ holds: () async throws -> Bool
) async throws {
    let _: Bool = try await waitFor(condition(), within: ceiling, fileID: fileID, line: line) {
        try await holds() ? true : nil
    }
}
