import Foundation
import OpenCatCore
import OpenCatTesting
import Testing

struct ManualClockTests {
    @Test func advancingWakesSleepersWhoseDeadlineHasPassedAndNoOthers() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        let short = Task { try await clock.sleep(for: .seconds(10)) }
        let long = Task { try await clock.sleep(for: .seconds(100)) }
        #expect(await clock.waitForSleepers(2))
        clock.advance(by: .seconds(10))
        try await short.value
        #expect(clock.sleeperCount == 1)
        #expect(clock.currentDate == Fixture.epoch + 10)
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func autoAdvanceJumpsToTheDeadlineAndRecordsTheWait() async throws {
        let clock = ManualClock(start: Fixture.epoch, autoAdvance: true)
        try await clock.sleep(for: .seconds(42))
        #expect(clock.currentDate == Fixture.epoch + 42)
        #expect(clock.recordedSleeps == [.seconds(42)])
    }

    @Test func autoAdvanceHoldsWhileExternalWorkRunsWhenAskedTo() async throws {
        let clock = ManualClock(start: Fixture.epoch, autoAdvance: true, holdsDuringExternalWork: true)
        let gate = AsyncStream<Void>.makeStream()
        let work = Task { try await clock.waitingOnExternalWork { for await _ in gate.stream {} } }
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        #expect(await clock.waitForSleepers(1))
        for _ in 0..<2_000 { await Task.yield() }
        #expect(clock.sleeperCount == 1, "must not advance while external work runs")
        #expect(clock.currentDate == Fixture.epoch)
        gate.continuation.finish()
        try await work.value
        try await sleeper.value
        #expect(clock.currentDate == Fixture.epoch + 5)
    }

    @Test func sleepingUntilADateInThePastReturnsAtOnce() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        try await clock.sleep(untilDate: Fixture.epoch - 60)
        #expect(clock.sleeperCount == 0)
    }
}
