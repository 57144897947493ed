import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// The journal table's edges: the catalog's bound on an abandoned close, an opted-out start, the
/// erasure of a customer, a row whose stored close is written as the app made it.
struct PresentationJournalTableTests {
    static let at: Int64 = 1_764_400_000_000

    func snapshot(
        pwID: UUID = UUIDv7.make(milliseconds: Self.at), user: String = "u1", visible: Double = 3,
        close: EventRecord? = nil
    ) -> PresentationSnapshot {
        PresentationSnapshot(
            pwID: pwID, source: "onboarding", userID: user, visibleSeconds: visible,
            checkpointAt: Self.at, lastProduct: "pro_annual", close: close)
    }

    func closes(_ store: EventStore) throws -> [(via: String?, openS: Double?)] {
        try store.connection.all("SELECT via, open_s FROM events WHERE name = 'paywall_closed'") {
            ($0.string(at: 0), $0.double(at: 1))
        }
    }

    @Test func anAbandonedCloseSaysAtMostTheCatalogsBoundAndIsValid() {
        let close = snapshot(visible: 200_000).abandonedClose()
        #expect(close.properties.openS == 86_400)
        #expect(close.properties.via == .abandoned && close.properties.result == .dismissed)
        #expect(close.properties.product == "pro_annual")
        #expect(close.occurredAt == Self.at)
        #expect(EventValidator().validate(close) == [])
    }

    @Test func anOptedOutStartDeletesTheStateAndWritesNoClose() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("db"), now: .constant(Self.at))
        let gone = PresentationJournalTable(store: store)
        gone.save(snapshot())
        gone.stop()
        let recovery = try PresentationJournalTable(store: store).recoverAbandoned(writing: false)
        #expect(recovery.abandoned == 0)
        #expect(try closes(store).isEmpty)
        #expect(try store.connection.scalar("SELECT count(*) FROM open_presentations")?.int64 == 0)
    }

    @Test func forgettingACustomerDeletesTheirSavedStateOnly() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("db"), now: .constant(Self.at))
        let journal = PresentationJournalTable(store: store)
        journal.save(snapshot(user: "forget-me"))
        journal.save(snapshot(user: "keep-me"))
        let report = try UserErasure(store: store).forget(["forget-me"])
        #expect(report.rows(in: "open_presentations") == 1)
        let users = try store.connection.all("SELECT user_id FROM open_presentations") { $0.string(at: 0) }
        #expect(users == ["keep-me"])
    }

    @Test func aJournaledCloseIsWrittenAsTheAppMadeItAndOnlyOnce() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("db"), now: .constant(Self.at))
        let open = snapshot()
        let appClose = PaywallClosed(
            pwID: open.pwID, source: "onboarding", result: .dismissed, via: .gesture, openS: 2.5, product: nil
        ).record(id: UUIDv7.make(milliseconds: Self.at + 2_500), occurredAt: Self.at + 2_500, userID: "u1")
        let gone = PresentationJournalTable(store: store)
        gone.save(snapshot(pwID: open.pwID, close: appClose))
        gone.stop()
        // The close reached the events table before the kill, too: recovery adds nothing
        try store.insert([appClose])
        let recovery = try PresentationJournalTable(store: store).recoverAbandoned()
        #expect(recovery.alreadyClosed == 1 && recovery.abandoned == 0 && recovery.closesWritten == 0)
        #expect(try closes(store).map(\.via) == ["gesture"])
    }
}
