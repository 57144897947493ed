import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

struct RecorderFailureTests {
    let directory = TemporaryDirectory()
    var path: String { directory.path("events.sqlite") }

    /// A recorder bounded at 100 events (batch size 100) on a store whose write lock `holder` holds,
    /// each commit waiting `busyTimeout` ms for it; `log` hears the diagnostics.
    func boundedRecorderBehindALock(busyTimeout: Int32) throws -> (
        holder: Connection, log: DiagnosticsLog, recorder: Recorder
    ) {
        _ = try Schema.open(path: path)
        let holder = try Connection(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let log = DiagnosticsLog()
        let recorder = try Recorder(
            path: path, options: OpenOptions(busyTimeoutMilliseconds: busyTimeout), now: .system,
            policy: FlushPolicy(batchSize: 100, capacity: 100), clock: ManualClock(), diagnostics: log.hook)
        return (holder, log, recorder)
    }

    @Test func aFullDatabaseKeepsEventsHeldAndSavesThemOnceThereIsRoom() async throws {
        // Given 100 committed events and a page limit at the current size
        let log = DiagnosticsLog()
        let recorder = try Recorder(
            path: path, now: .system, policy: FlushPolicy(batchSize: 10_000, capacity: 10_000),
            clock: ManualClock(), diagnostics: log.hook)
        for index in 0..<100 { recorder.record(Fixtures.event(index)) }
        try await recorder.flush()
        let connection = recorder.store.connection
        let pages = try #require(try connection.scalar("PRAGMA page_count")?.int64)
        try connection.execute("PRAGMA max_page_count = \(pages)")
        // When 2,000 more are recorded and flushed
        for index in 100..<2_100 { recorder.record(Fixtures.event(index)) }
        let error = try await #require(throws: StorageError.self) { try await recorder.flush() }
        // Then a typed "full" error reaches flush and the hook, the events stay held, and what was committed is intact
        #expect(error.kind == .full)
        #expect(log.all.contains { if case .commitFailed(let e, 2_000) = $0 { e.kind == .full } else { false } })
        #expect(recorder.heldCount == 2_000)
        #expect(try Fixtures.count(connection, "SELECT count(*) FROM events") == 100)
        #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
        // When room is made, the retry stores every held event once
        try connection.execute("PRAGMA max_page_count = 1000000")
        try await recorder.flush()
        #expect(try Fixtures.count(connection, "SELECT count(*) FROM events") == 2_100)
        #expect(recorder.heldCount == 0)
        #expect(log.all.contains(.recovered(afterFailures: 1, committedEvents: 2_000)))
        try await recorder.close()
    }

    @Test func aWriteLockHeldByAnotherProcessIsReportedAndRetried() async throws {
        // Given another process holding the write lock
        _ = try Schema.open(path: path)
        let holder = try ChildProcess(
            ["hold-lock", path], errorsTo: directory.url.appendingPathComponent("holder-stderr"))
        #expect(await holder.readLine() == "locked", "helper stderr: \(holder.stderrText)")
        let log = DiagnosticsLog()
        let recorder = try Recorder(
            path: path, options: OpenOptions(busyTimeoutMilliseconds: 200), now: .system,
            clock: ManualClock(), diagnostics: log.hook)
        // When events are recorded and flushed
        for index in 0..<10 { recorder.record(Fixtures.event(index)) }
        let error = try await #require(throws: StorageError.self) { try await recorder.flush() }
        // Then the flush fails with a typed "busy" error, the hook is told, and the events stay held
        #expect(error.kind == .busy)
        #expect(error.description.contains("locked by another"))
        #expect(log.all.contains { if case .commitFailed(let e, 10) = $0 { e.kind == .busy } else { false } })
        #expect(recorder.heldCount == 10)
        // When the other process lets go, the next flush stores them
        holder.send("release")
        await holder.waitForExit()
        try await recorder.flush()
        #expect(try Fixtures.count(recorder.store.connection, "SELECT count(*) FROM events") == 10)
        try await recorder.close()
    }

    @Test func atTheBoundTheNewestEventsAreDroppedCountedAndPersisted() async throws {
        // Given a recorder bounded at 100 events whose commits fail because the lock is held
        let (holder, log, recorder) = try boundedRecorderBehindALock(busyTimeout: 50)
        // When 150 events are recorded
        let events = (0..<150).map { Fixtures.event($0) }
        for event in events { recorder.record(event) }
        // Then the 50 newest are dropped and counted; the 100 oldest are held
        #expect(recorder.droppedCount == 50)
        #expect(recorder.heldCount == 100)
        let flushError = await #expect(throws: StorageError.self) { try await recorder.flush() }
        #expect(flushError?.kind == .busy)
        #expect(
            log.all.contains {
                if case .droppingAtBound(100, let soFar) = $0 { (1...50).contains(soFar) } else { false }
            })
        // When the lock is released and the recorder flushes
        try holder.execute("COMMIT")
        try await recorder.flush()
        // Then the 100 oldest are stored and the drop count is in the drops table and in stats
        let stored = Set(try recorder.store.connection.all("SELECT id FROM events") { $0.string(at: 0) ?? "" })
        #expect(stored == Set(events.prefix(100).map(\.id.uuidString)))
        #expect(try recorder.store.stats().droppedAtBound == 50)
        try await recorder.close()
    }

    @Test func dropsThatBeginWhileACommitWaitsAreReportedBeforeTheFlushItSatisfiesReturns() async throws {
        // Given a recorder bounded at 100 events whose first commit waits for a lock another connection holds
        let (holder, log, recorder) = try boundedRecorderBehindALock(busyTimeout: 600_000)
        // When 100 events are recorded and the committer has taken them, then 50 more (dropped at the
        // bound while that commit waits), a flush is asked for and the lock is let go
        let events = (0..<150).map { Fixtures.event($0) }
        for event in events.prefix(100) { recorder.record(event) }
        #expect(await Eventually.holds { recorder.committingCount == 100 })
        for event in events.suffix(50) { recorder.record(event) }
        #expect(recorder.droppedCount == 50)
        let flush = Task { try await recorder.flush() }
        try holder.execute("COMMIT")
        try await flush.value
        // Then by the time the flush returns the hook has heard of the drops, once, whichever commit took them
        let reports = log.all.compactMap { if case .droppingAtBound(100, let soFar) = $0 { soFar } else { nil } }
        #expect(reports.count == 1 && (1...50).contains(reports[0]), "\(reports)")
        #expect(try Fixtures.count(recorder.store.connection, "SELECT count(*) FROM events") == 100)
        try await recorder.close()
    }

    @Test func aReadOnlyFileIsRefusedWithATypedError() throws {
        // Given an existing store made read-only (immutable when running as root, who ignores modes)
        _ = try EventStore(path: path, now: .system)
        try makeReadOnly(path)
        defer { undoReadOnly(path) }
        // When a recorder opens it
        let error = try #require(throws: StorageError.self) { _ = try Recorder(path: path, now: .system) }
        // Then the error says it is read-only and what to do
        #expect(error.kind == .readOnly)
        #expect(error.description.contains("writable"))
    }

    @Test func aFileOfGarbageIsRefusedAndLeftUntouched() throws {
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 13) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: StorageError.self) { _ = try Recorder(path: path, now: .system) }
        #expect(error.kind == .corrupt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aStoreFromANewerProgramIsRefusedAndLeftUntouched() throws {
        _ = try EventStore(path: path, now: .system)
        let writer = try Connection(path: path)
        try writer.execute("PRAGMA user_version = \(Schema.latestVersion + 1)")
        let error = try #require(throws: StorageError.self) { _ = try EventStore(path: path, now: .system) }
        #expect(error.kind == .schemaTooNew(found: Schema.latestVersion + 1, known: Schema.latestVersion))
        #expect(try writer.scalar("PRAGMA user_version")?.int64 == Int64(Schema.latestVersion + 1))
    }

    func makeReadOnly(_ path: String) throws {
        if getuid() == 0 {
            let chattr = try CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/chattr")).runBlocking([
                "+i", path,
            ])
            try #require(
                chattr.status == 0, "chattr +i failed: root needs CAP_LINUX_IMMUTABLE for this test: \(chattr.stderr)")
        } else {
            try #require(chmod(path, 0o444) == 0)
        }
    }

    func undoReadOnly(_ path: String) {
        if getuid() == 0 {
            _ = try? CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/chattr")).runBlocking(["-i", path])
        }
        chmod(path, 0o600)
    }
}
