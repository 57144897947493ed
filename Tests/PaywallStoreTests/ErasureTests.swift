import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import PaywallWire
import Testing

@testable import PaywallStore

/// `UserErasure` on a real SQLite file: every row of the customers goes, the files hold no byte of
/// their ids afterwards, rowids are never handed out again, and later events of theirs are refused.
struct ErasureTests {
    static let erased = "erased-customer-Zr8Kq"
    static let kept = "kept-customer-Mv3Tn"

    /// A store with both customers' events (impressions pending, delivered and dead-lettered) and
    /// quarantined lines that carry the erased id (parsed, unparsed, and in a reason).
    func makeStore(_ folder: TemporaryDirectory) throws -> EventStore {
        let store = try EventStore(path: folder.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        let erased = (0..<12).map { Fixtures.event($0, user: Self.erased) }
        let kept = (100..<108).map { Fixtures.event($0, user: Self.kept) }
        try store.insert(erased + kept)
        let impressions = try store.connection.all("SELECT id FROM events WHERE name = 'paywall_shown' ORDER BY seq") {
            UUID(uuidString: $0.string(at: 0) ?? "")!
        }
        let outbox = SQLiteOutbox(store: store)
        try outbox.markDelivered([impressions[0]], at: Fixtures.baseTime)
        try outbox.deadLetter(
            [impressions[1]], status: 400, reason: "invalid app_user_id \(Self.erased)", at: Fixtures.baseTime)
        try store.quarantine([
            QuarantineEntry(
                quarantinedAt: 1, reasons: ["missing pw_id"],
                payload: #"{"id":"x","name":"paywall_shown","user_id":"\#(Self.erased)"}"#),
            QuarantineEntry(
                quarantinedAt: 2, reasons: ["not JSON"], payload: #"{"user_id" : "\#(Self.erased)", broken"#),
            QuarantineEntry(quarantinedAt: 3, reasons: ["source \(Self.erased) is too long"], payload: "{}"),
            QuarantineEntry(quarantinedAt: 4, reasons: ["missing pw_id"], payload: #"{"user_id":"\#(Self.kept)"}"#),
        ])
        return store
    }

    func filesHold(_ needle: String, _ folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).map(folder.path).filter { file in
            try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(needle.utf8)) != nil
        }
    }

    @Test func forgetErasesEveryRowOfTheCustomerAndNoFileHoldsTheID() throws {
        // Given a store holding two customers, with the erased id in the database file or its WAL
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try makeStore(folder)
        #expect(try !filesHold(Self.erased, folder).isEmpty)
        // When one customer is forgotten
        let report = try UserErasure(store: store).forget([Self.erased, Self.erased])
        // Then every row of theirs went, and nothing of the other customer
        #expect(report.events == 12)
        #expect(report.rows(in: "outbox") == 1)
        #expect(report.rows(in: "deliveries") == 1)
        #expect(report.rows(in: "dead_letters") == 1)
        #expect(report.rows(in: "quarantine") == 3)
        #expect(report.suppressionsAdded == 1)
        #expect(try Fixtures.count(store.connection, "SELECT count(*) FROM events") == 8)
        #expect(try Fixtures.count(store.connection, "SELECT count(*) FROM events WHERE user_id = '\(Self.kept)'") == 8)
        #expect(try Fixtures.count(store.connection, "SELECT count(*) FROM quarantine") == 1)
        let stats = try store.stats()
        #expect(stats.outboxPending == 2 && stats.outboxDelivered == 0 && stats.outboxDead == 0)
        #expect(
            try Fixtures.count(store.connection, "SELECT coalesce(sum(delivered), 0) FROM report_delivery_buckets") == 0
        )
        #expect(try Fixtures.count(store.connection, "SELECT coalesce(sum(dead), 0) FROM report_dead_buckets") == 0)
        // And no byte of the database, its -wal or its -shm holds the erased id; the WAL is empty
        #expect(try filesHold(Self.erased, folder).isEmpty)
        #expect(
            (try? FileManager.default.attributesOfItem(atPath: folder.path("events.sqlite-wal"))[.size] as? Int) ?? 0
                == 0)
        #expect(try !filesHold(Self.kept, folder).isEmpty)
        // And forgetting again is harmless
        let again = try UserErasure(store: store).forget([Self.erased])
        #expect(again.events == 0 && again.suppressionsAdded == 0)
    }

    @Test func erasingTheNewestEventsNeverHandsTheirRowidsToLaterEvents() throws {
        // Given a store whose newest events (largest rowids) belong to the customer forgotten
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        try store.insert((0..<5).map { Fixtures.event($0, user: Self.kept) })
        try store.insert((5..<9).map { Fixtures.event($0, user: Self.erased) })
        #expect(try Fixtures.count(store.connection, "SELECT max(seq) FROM events") == 9)
        _ = try UserErasure(store: store).forget([Self.erased])
        // When new events arrive
        try store.insert((20..<22).map { Fixtures.event($0, user: Self.kept) })
        // Then they start above every rowid ever used
        #expect(
            try store.connection.all("SELECT seq FROM events ORDER BY seq") { $0.int64(at: 0) } == [
                1, 2, 3, 4, 5, 10, 11,
            ])
        let outboxRowids = try store.connection.all("SELECT event_rowid FROM outbox ORDER BY 1") { $0.int64(at: 0) }
        #expect(outboxRowids.allSatisfy { [1, 2, 3, 4, 5, 10, 11].contains($0) })
        // And the floor is dropped by the next write, once stored rowids are above it
        try store.insert([])
        #expect(try store.connection.scalar("SELECT value FROM meta WHERE key = ?", [.text(SequenceFloor.key)]) == nil)
    }

    @Test func forgottenCustomersAreRefusedByEveryWritePathAndOnlySaltedHashesAreKept() throws {
        // Given a forgotten customer
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try makeStore(folder)
        _ = try UserErasure(store: store).forget([Self.erased])
        // When their events arrive again: a direct insert (the recorder's path), a group commit (the
        // collector's) and an NDJSON import with a bad line of theirs
        #expect(try store.insert([Fixtures.event(300, user: Self.erased), Fixtures.event(301, user: Self.kept)]) == 1)
        let counts = try store.commitGroup([
            CommitPart(
                events: [Fixtures.event(302, user: Self.erased)],
                quarantine: [], impressions: .pending)
        ])
        #expect(counts == [EventCounts(accepted: 0, duplicates: 0, quarantined: 0, suppressed: 1)])
        let lines = [
            NDJSONLine.encode(Fixtures.event(303, user: Self.erased)),
            NDJSONLine.encode(Fixtures.event(304, user: Self.kept)),
            #"{"user_id":"\#(Self.erased)","name":"paywall_shown"}"#,
        ]
        let inputs = TemporaryDirectory()
        defer { inputs.remove() }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: inputs.url.appendingPathComponent("in.ndjson"))
        let result = try Importer(store: store).importFiles([inputs.path("in.ndjson")])
        // Then none of theirs is stored, each is counted as suppressed, the others are stored
        #expect(result.imported == 1 && result.suppressed == 2 && result.quarantined == 0)
        #expect(
            try Fixtures.count(store.connection, "SELECT count(*) FROM events WHERE user_id = '\(Self.erased)'") == 0)
        #expect(try store.stats().suppressed == 4)
        #expect(try store.stats().suppressedCustomers == 1)
        _ = try SecureWipe.clean(store.connection, needles: [])
        #expect(try filesHold(Self.erased, folder).isEmpty)
        // And the list holds the salted hash, not the id nor its plain SHA-256
        let stored = try store.connection.all("SELECT user_sha256 FROM suppressions") {
            $0.withUnsafeBlob(at: 0) { Array($0) }
        }
        #expect(stored.count == 1 && stored[0] != SHA256.digest(Self.erased.utf8))
        // When the suppression is lifted, their events are stored again
        #expect(try UserErasure(store: store).allowAgain([Self.erased]) == 1)
        #expect(try store.insert([Fixtures.event(305, user: Self.erased)]) == 1)
    }

    @Test func aCopyLeftInFreeSpaceByEarlierWritesMakesForgetRebuildTheFile() throws {
        // Given a store where an earlier write (without secure_delete) left the id in free space
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        try store.insert((0..<50).map { Fixtures.event($0, user: Self.kept) })
        try store.quarantine([
            QuarantineEntry(
                quarantinedAt: 1, reasons: ["r"], payload: "note \(Self.erased) \(String(repeating: "x", count: 3000))")
        ])
        try store.connection.execute("PRAGMA secure_delete = OFF")
        _ = try store.connection.run("DELETE FROM quarantine")
        _ = try store.connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try filesHold(Self.erased, folder) == [folder.path("events.sqlite")])
        // When the customer is forgotten (no row of theirs is left to delete)
        let report = try UserErasure(store: store).forget([Self.erased])
        // Then the file was rebuilt and holds no copy any more; the other customer is intact
        #expect(report.events == 0 && report.vacuumed && !report.residueInOtherData)
        #expect(try filesHold(Self.erased, folder).isEmpty)
        #expect(try Fixtures.count(store.connection, "SELECT count(*) FROM events") == 50)
        #expect(try store.connection.scalar("PRAGMA integrity_check")?.string == "ok")
    }

    @Test func theRecorderStoresNothingOfAForgottenCustomer() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        _ = try UserErasure(store: store).forget([Self.erased])
        let recorder = Recorder(store: store)
        for index in 0..<6 { recorder.record(Fixtures.event(index, user: index % 2 == 0 ? Self.erased : Self.kept)) }
        try await recorder.flush()
        try await recorder.close()
        #expect(try store.stats().totalEvents == 3 && store.stats().suppressed == 3)
        #expect(recorder.droppedCount == 0)
    }

    @Test func idsAreComparedByTheirBytesNotByCanonicalEquivalence() throws {
        // Given two customers whose ids are canonically equivalent but different scalars
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try store.insert([Fixtures.event(1, user: composed), Fixtures.event(2, user: decomposed)])
        // When the composed one is forgotten
        #expect(try UserErasure(store: store).forget([composed]).events == 1)
        // Then the other keeps its events, and its later events are stored, not suppressed
        #expect(try store.insert([Fixtures.event(3, user: decomposed), Fixtures.event(4, user: composed)]) == 1)
        #expect(
            try store.connection.all("SELECT user_id FROM events") { $0.string(at: 0)!.unicodeScalars.count } == [5, 5])
        #expect(try store.stats().suppressed == 1)
    }

    @Test(arguments: [
        ([] as [String], ErasureError.Kind.noIDs),
        (["ok", ""], ErasureError.Kind.emptyID(position: 2)),
        ([String(repeating: "é", count: 400)], ErasureError.Kind.tooLong(position: 1, bytes: 800)),
    ])
    func aBadIDListIsRefusedBeforeAnythingChanges(_ ids: [String], _ kind: ErasureError.Kind) throws {
        #expect(throws: ErasureError(kind)) { try UserErasure.validated(ids) }
        #expect(!ErasureError(kind).description.isEmpty)
    }

    @Test(arguments: [
        (#"{"user_id":"a","x":1}"#, ["a"]),
        (#"{"user_id":"a\"b", broken"#, [#"a"b"#]),
        (#"garbage "user_id" :  "x1" more "user_id":"x2""#, ["x1", "x2"]),
        (#"{"name":"paywall_shown"}"#, [] as [String]),
        (#"{"user_id":7}"#, []),
    ])
    func quarantinedLinesGiveTheirUserIDs(_ line: String, _ ids: [String]) {
        #expect(QuarantineUserIDs.ids(in: Array(line.utf8)) == ids)
    }
}
