import Foundation
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import PaywallTestSupport
import Testing

/// `SubscriptionImporter` on real files: line splitting, batches, line numbers in the quarantine, and
/// over-long lines (within one read and across reads) quarantined without stopping the import.
@Suite struct SubscriptionImporterTests {
    static func line(_ id: String, user: String = "imp_user") -> String {
        #"{"api_version":"1.0","event":{"id":"\#(id)","type":"RENEWAL","app_user_id":"\#(user)","price":1.25}}"#
    }

    final class Fixture {
        let folder = TemporaryDirectory(prefix: "subscription-import")
        let connection: Connection
        let store: SubscriptionEventStore
        init() throws {
            connection = try SubscriptionSchema.open(path: folder.path("events.sqlite"))
            store = SubscriptionEventStore(connection: connection)
        }
        func ids() throws -> [String] {
            try connection.all("SELECT id FROM subscription_events ORDER BY rowid") { $0.string(at: 0) ?? "" }
        }
        func quarantine() throws -> [(line: Int64, reasons: String, payload: String)] {
            try connection.all("SELECT line, reasons, payload, origin FROM quarantine ORDER BY seq") {
                ($0.int64(at: 0), $0.string(at: 1) ?? "", $0.string(at: 2) ?? "")
            }
        }
    }

    @Test func linesSplitOnNewlinesWithCRLFBlankLinesAndNoFinalNewlineAcrossSmallBatches() throws {
        let fixture = try Fixture()
        let text =
            Self.line("I-1") + "\r\n\n   \n" + Self.line("I-2") + "\n" + "broken\r\n" + Self.line("I-3") + "\n"
            + Self.line("I-1") + "\n" + Self.line("I-4")
        let path = try fixture.folder.write("in.ndjson", text)
        let importer = SubscriptionImporter(store: fixture.store, batchSize: 2, now: { 1_765_000_000_000 })
        let result = try importer.importFile(path)
        #expect(result.imported == 4 && result.duplicates == 1 && result.quarantined == 1 && result.suppressed == 0)
        #expect(try fixture.ids() == ["I-1", "I-2", "I-3", "I-4"])
        let quarantined = try fixture.quarantine()
        #expect(quarantined.count == 1)
        #expect(quarantined.first?.line == 5)
        #expect(quarantined.first?.payload == "broken")
        #expect(
            try fixture.connection.scalar("SELECT origin FROM quarantine")?.string
                == SubscriptionImporter.origin(of: path))
        #expect(
            try fixture.connection.scalar("SELECT received_at_ms FROM subscription_events WHERE id = 'I-4'")?.int64
                == 1_765_000_000_000)
    }

    @Test func anOverLongLineIsQuarantinedWithItsFirstBytesAndTheRestImports() throws {
        let fixture = try Fixture()
        let long = Self.line("LONG-1", user: String(repeating: "x", count: 400))
        let path = try fixture.folder.write(
            "in.ndjson", [Self.line("S-1"), long, Self.line("S-2")].joined(separator: "\n"))
        let result = try SubscriptionImporter(store: fixture.store, maxLineBytes: 200).importFile(path)
        #expect(result.imported == 2 && result.quarantined == 1)
        let quarantined = try fixture.quarantine()
        #expect(quarantined.count == 1)
        #expect(quarantined.first?.line == 2)
        let shown = min(512, long.utf8.count)
        #expect(
            quarantined.first?.reasons
                == "the line is \(long.utf8.count) bytes, longer than the 200-byte limit; a webhook body is kept whole only up to that size (its first \(shown) bytes are shown)"
        )
        #expect(try fixture.ids() == ["S-1", "S-2"])
    }

    @Test func aLineLongerThanOneReadIsQuarantinedWithoutBeingKeptWhole() throws {
        let fixture = try Fixture()
        let long = Self.line("HUGE-1", user: String(repeating: "y", count: 2_500_000))
        let path = try fixture.folder.write(
            "in.ndjson", Self.line("H-0") + "\n" + long + "\n" + Self.line("H-2") + "\n")
        let result = try SubscriptionImporter(store: fixture.store).importFile(path)
        #expect(result.imported == 2 && result.quarantined == 1)
        let quarantined = try fixture.quarantine()
        #expect(quarantined.first?.line == 2)
        #expect(
            quarantined.first?.reasons.hasPrefix(
                "the line is \(long.utf8.count) bytes, longer than the 1048576-byte limit") == true)
        #expect(quarantined.first?.payload.utf8.count == 512)
        #expect(try fixture.ids() == ["H-0", "H-2"])
        // The same file again: the over-long line is recognised by the digest of all its bytes.
        let again = try SubscriptionImporter(store: fixture.store).importFile(path)
        #expect(again.duplicates == 2 && again.quarantined == 1)
        #expect(try fixture.quarantine().count == 1)
    }

    @Test func aMissingFileAndADirectoryAreImportErrors() throws {
        let fixture = try Fixture()
        let importer = SubscriptionImporter(store: fixture.store)
        #expect(throws: ImportError.self) { try importer.importFile(fixture.folder.path("missing.ndjson")) }
        do {
            _ = try importer.importFile(fixture.folder.path("missing.ndjson"))
        } catch let error as ImportError {
            #expect(error.kind == .missingInput)
        }
        do {
            _ = try importer.importFile(fixture.folder.url.path)
            Issue.record("a directory was imported")
        } catch let error as ImportError {
            #expect(error.kind == .unreadable)
        }
    }
}
