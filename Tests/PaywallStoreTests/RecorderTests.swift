import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

struct RecorderTests {
    let directory = TemporaryDirectory()

    func makeRecorder(
        _ policy: FlushPolicy = FlushPolicy(batchSize: 1_000, capacity: 10_000),
        clock: ManualClock = ManualClock(), log: DiagnosticsLog = DiagnosticsLog()
    ) throws -> Recorder {
        try Recorder(
            path: directory.path("events.sqlite"), now: .constant(Fixtures.baseTime + 1_000_000),
            policy: policy, clock: clock, diagnostics: log.hook)
    }

    @Test func flushReturnsOnlyOnceEverythingRecordedBeforeIsReadableFromAnotherConnection() async throws {
        // Given 250 recorded events and a batch size they do not reach
        let recorder = try makeRecorder()
        for index in 0..<250 { recorder.record(Fixtures.event(index)) }
        // When flush returns
        try await recorder.flush()
        // Then an independent connection sees all of them, and impressions are in the outbox
        let reader = try Connection(path: directory.path("events.sqlite"))
        #expect(try Fixtures.count(reader, "SELECT count(*) FROM events") == 250)
        #expect(try Fixtures.count(reader, "SELECT count(*) FROM outbox") == 63)
        #expect(
            try Fixtures.count(
                reader, "SELECT count(*) FROM events WHERE recorded_at = \(Fixtures.baseTime + 1_000_000)") == 250)
        #expect(recorder.committedCount == 250)
        try await recorder.close()
    }

    @Test func commitsOnItsOwnWhenTheBatchIsFull() async throws {
        // Given a batch size of 10 and a clock that never moves
        let recorder = try makeRecorder(FlushPolicy(batchSize: 10, capacity: 100))
        // When 10 events are recorded (and nobody flushes)
        for index in 0..<10 { recorder.record(Fixtures.event(index)) }
        // Then the committer writes them
        #expect(await Eventually.holds { recorder.committedCount == 10 })
        #expect(try Fixtures.count(recorder.store.connection, "SELECT count(*) FROM events") == 10)
        try await recorder.close()
    }

    @Test func commitsWhatIsBufferedWhenTheIntervalPasses() async throws {
        // Given a few events, far below the batch size, on a manual clock
        let clock = ManualClock()
        let recorder = try makeRecorder(
            FlushPolicy(batchSize: 1_000, capacity: 10_000, interval: .seconds(2)), clock: clock)
        for index in 0..<3 { recorder.record(Fixtures.event(index)) }
        #expect(await Eventually.holds { clock.sleeperCount == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.committedCount == 0)
        // When less than the interval passes, nothing is committed; when it passes, they are
        clock.advance(by: .seconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.committedCount == 0)
        clock.advance(by: .seconds(1))
        #expect(await Eventually.holds { recorder.committedCount == 3 })
        try await recorder.close()
    }

    @Test func storesAnEventRecordedTwiceOnce() async throws {
        // Given an impression recorded twice, then again after a flush
        let recorder = try makeRecorder()
        let impression = Fixtures.event(0, name: .paywallShown)
        recorder.record(impression)
        recorder.record(impression)
        try await recorder.flush()
        recorder.record(impression)
        try await recorder.flush()
        // Then it is stored once, with one outbox row
        let connection = recorder.store.connection
        #expect(try Fixtures.count(connection, "SELECT count(*) FROM events") == 1)
        #expect(try Fixtures.count(connection, "SELECT count(*) FROM outbox") == 1)
        try await recorder.close()
    }

    @Test func storesEveryColumnOfTheEnvelopeAndProperties() async throws {
        let recorder = try makeRecorder()
        let closed = Fixtures.event(3, name: .paywallClosed, user: "ü-42")
        recorder.record(closed)
        try await recorder.flush()
        let row = try recorder.store.connection.all(
            "SELECT id, name, occurred_at, user_id, session_id, catalog_version, pw_id, source, result, via, open_s, product FROM events"
        ) { row in (0..<12).map { row.value(at: $0) } }
        #expect(
            row.first == [
                .text(closed.id.uuidString), .text("paywall_closed"), .integer(closed.occurredAt), .text("ü-42"),
                .text(closed.sessionID!.uuidString), .integer(2), .text(closed.properties.pwID.uuidString),
                .text("onboarding"), .text("dismissed"), .text("close_button"), .real(3.5), .null,
            ])
        try await recorder.close()
    }

    @Test func manyTasksRecordingAtOnceStoreExactlyWhatWasRecorded() async throws {
        // Given 8 tasks recording 5,000 distinct events each with a small batch size
        let recorder = try makeRecorder(FlushPolicy(batchSize: 256, capacity: 100_000))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<5_000 {
                        recorder.record(Fixtures.event(task * 5_000 + index, user: "user-\(task)"))
                    }
                }
            }
        }
        // When everything is flushed
        try await recorder.flush()
        // Then every event is stored exactly once and nothing was dropped
        let connection = recorder.store.connection
        #expect(try Fixtures.count(connection, "SELECT count(*) FROM events") == 40_000)
        #expect(try Fixtures.count(connection, "SELECT count(DISTINCT id) FROM events") == 40_000)
        #expect(
            try Fixtures.count(connection, "SELECT count(*) FROM events GROUP BY user_id HAVING count(*) <> 5000") == -1
        )
        #expect(recorder.droppedCount == 0)
        #expect(recorder.committedCount == 40_000)
        try await recorder.close()
    }

    @Test func closeCommitsWhatIsHeldAndLaterEventsAreCountedAsDropped() async throws {
        let recorder = try makeRecorder()
        for index in 0..<5 { recorder.record(Fixtures.event(index)) }
        try await recorder.close()
        recorder.record(Fixtures.event(99))
        #expect(recorder.droppedCount == 1)
        let reader = try Connection(path: directory.path("events.sqlite"))
        #expect(try Fixtures.count(reader, "SELECT count(*) FROM events") == 5)
        try await recorder.flush()
    }
}
