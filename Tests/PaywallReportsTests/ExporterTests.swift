import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct ExporterTests {
    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n").dropLast().map { $0 }
    }

    @Test func eventsExportEveryStoredEventOnceWithItsDeliveryState() throws {
        // Given the fixture (38 distinct events; a duplicate id was stored once)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let exporter = Exporter(connection: try ReportFixture.makeStore(at: folder.path("db")))
        // When exporting all events
        let rows = try exporter.export(.events, toPath: folder.path("events.csv"))
        // Then there is one row per distinct id, guarded text, and the outbox state of impressions
        let lines = try lines(folder.path("events.csv"))
        #expect(rows == Int64(ReportFixture.events.count))
        #expect(lines.count == ReportFixture.events.count + 1)
        #expect(
            lines[0]
                == "id,name,occurred_at,occurred_at_iso,recorded_at,recorded_at_iso,user_id,session_id,catalog_version,pw_id,source,offering_id,placement_id,product,result,via,open_s,app_version,build,platform,os_version,sdk_version,locale,delivery_state"
        )
        #expect(
            lines.contains(
                "00000000-0000-0000-0000-000000000015,paywall_shown,1793584800000,2026-11-02T02:00:00.000Z,1793584800050,2026-11-02T02:00:00.050Z,u10,,1,AAAAAAAA-0000-0000-0000-000000000009,'=SUM(A1),,,,,,,,,,,,,pending"
            ))
        #expect(
            lines.contains(
                "00000000-0000-0000-0000-000000000005,paywall_closed,1793527212500,2026-11-01T10:00:12.500Z,1793527212550,2026-11-01T10:00:12.550Z,u1,,1,AAAAAAAA-0000-0000-0000-000000000001,onboarding,,,pro.year,purchased,auto,12.5,,,,,,,"
            ))
    }

    @Test func anExportOfManyChunksHasEveryRowOnceInSeqOrderWithItsState() throws {
        // Given 12,000 events, far more than one hand-over from the reading thread holds (about 1,000 rows)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("db")
        let store = try EventStore(path: path, now: .constant(1_793_600_000_000))
        let events = DeviceEvents.presentations(6_000)
        try store.insert(events)
        // When exporting them
        let rows = try Exporter(connection: store.connection).export(.events, toPath: folder.path("events.csv"))
        // Then every row came once, in seq order, with all 18 fields, and every impression is pending
        let lines = try lines(folder.path("events.csv")).dropFirst()
        #expect(rows == 12_000 && lines.count == 12_000)
        let stored = try store.connection.withDatabase { db in
            try db.all("SELECT id, name, occurred_at, user_id FROM events ORDER BY seq") { row in
                "\(row.string(at: 0) ?? ""),\(row.string(at: 1) ?? ""),\(row.int64(at: 2)),\(row.string(at: 3) ?? "")"
            }
        }
        let exported = lines.map { line -> String in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return "\(fields[0]),\(fields[1]),\(fields[2]),\(fields[6])"
        }
        #expect(exported == stored)
        #expect(lines.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 24 })
        let states = lines.map {
            $0.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? "?"
        }
        #expect(
            zip(lines, states).allSatisfy { line, state in line.contains(",paywall_shown,") == (state == "pending") })
    }

    @Test func deliveryStatesFollowTheImpressionsThroughDeliveryDeadLetterAndRequeue() throws {
        // Given the fixture's impressions moved by the forwarder's own operations: a pending one
        // delivered, another dead-lettered, and the fixture's dead one requeued then delivered
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let outbox = SQLiteOutbox(connection: connection)
        let (delivered, dead, requeued) = (ReportFixture.uuid(0x15), ReportFixture.uuid(0x06), ReportFixture.uuid(0x08))
        try outbox.markDelivered([try #require(UUID(uuidString: delivered))], at: ReportFixture.day2)
        #expect(try outbox.requeueDeadLetters(now: ReportFixture.day2) == 1)
        try outbox.deadLetter(
            [try #require(UUID(uuidString: dead))], status: 400, reason: "refused", at: ReportFixture.day2)
        // When exporting events, all and filtered to one placement (the cursors skip rows)
        try Exporter(connection: connection).export(.events, toPath: folder.path("e.csv"))
        try Exporter(connection: connection).export(
            .events, filter: ExportFilter(placements: ["=SUM(A1)"]), toPath: folder.path("f.csv"))
        // Then every impression carries its own state, and other events none
        let lines = try lines(folder.path("e.csv"))
        func state(_ id: String) -> String? {
            lines.first { $0.hasPrefix(id + ",") }?.split(separator: ",", omittingEmptySubsequences: false).last.map(
                String.init)
        }
        #expect(state(dead) == "dead")
        #expect(state(delivered) == "delivered")
        #expect(state(requeued) == "pending")
        #expect(state(ReportFixture.uuid(0x10)) == "pending")
        #expect(state(ReportFixture.uuid(0x01)) == "delivered")
        #expect(
            lines.contains {
                $0.hasPrefix(ReportFixture.uuid(0x07) + ",paywall_closed,") && $0.hasSuffix(",3.0,,,,,,,")
            })
        let filtered = try self.lines(folder.path("f.csv"))
        #expect(filtered.contains { $0.hasPrefix(delivered + ",paywall_shown,") && $0.hasSuffix(",delivered") })
    }

    @Test func rawEventsExportHasNoFormulaGuard() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let exporter = Exporter(connection: try ReportFixture.makeStore(at: folder.path("db")))
        try exporter.export(
            .events, filter: ExportFilter(placements: ["=SUM(A1)"]), raw: true, toPath: folder.path("e.csv"))
        let lines = try lines(folder.path("e.csv"))
        #expect(lines.count == 3)
        #expect(lines.dropFirst().allSatisfy { $0.contains(",=SUM(A1),") })
    }

    @Test func filtersCombineDaysPlacementsAndNames() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let exporter = Exporter(connection: try ReportFixture.makeStore(at: folder.path("db")))
        // onboarding impressions: 0x01, 0x02, 0x06, 0x08, 0x0D (day 1) and 0x0E (23:59:59 on day 1)
        let impressions = try exporter.export(
            .events, filter: ExportFilter(placements: ["onboarding"], names: ["paywall_shown"]),
            toPath: folder.path("a.csv"))
        #expect(impressions == 6)
        // day 2 holds 11 events (see data_quality.csv)
        let day2 = try exporter.export(
            .events, filter: ExportFilter(from: try ReportDate("2026-11-02"), to: try ReportDate("2026-11-02")),
            toPath: folder.path("b.csv"))
        #expect(day2 == 11)
        #expect(throws: ReportError.invalidRange(from: "2026-11-02", to: "2026-11-01")) {
            try exporter.export(
                .events, filter: ExportFilter(from: try ReportDate("2026-11-02"), to: try ReportDate("2026-11-01")),
                toPath: folder.path("c.csv"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("c.csv")))
    }

    @Test func quarantineAndDeadLettersExportQuotedPayloads() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given the fixture, whose dead impression 0x08 has its dead letter
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let exporter = Exporter(connection: connection)
        #expect(try exporter.export(.quarantine, toPath: folder.path("q.csv")) == 2)
        let quarantine = try lines(folder.path("q.csv"))
        #expect(quarantine[0] == "seq,quarantined_at,reasons,origin,line,payload,payload_escaped")
        #expect(quarantine[1] == "1,1793494800000,bad name,import.ndjson,3,\"{\"\"name\"\":\"\"=x\"\"}\",0")
        #expect(try exporter.export(.deadLetters, toPath: folder.path("d.csv")) == 1)
        let dead = try lines(folder.path("d.csv"))
        #expect(
            dead[1]
                == "00000000-0000-0000-0000-000000000008,400,\"invalid \"\"app_user_id\"\", refused\",1793577600000,,paywall_shown,1793534400000,u2,onboarding"
        )
    }

    @Test func funnelsExportPutsBothFunnelsSideBySide() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let exporter = Exporter(connection: try ReportFixture.makeStore(at: folder.path("db")))
        let rows = try exporter.export(
            .funnels, filter: ExportFilter(placements: ["onboarding"]), toPath: folder.path("f.csv"))
        let lines = try lines(folder.path("f.csv"))
        #expect(rows == 1)
        #expect(
            lines == [
                "date,placement,presentations,impressions,dwell_bounces,unique_viewers,impression_rate,plan_selected,purchase_started,purchased,restored,dismissed_close_button,dismissed_continue_free,unclosed,bounces,purchase_cancellations,conversion_rate,open_s_p50,open_s_p90,dismissed_gesture,abandoned",
                "2026-11-01,onboarding,6,5,1,4,0.8333,1,2,2,0,1,0,1,1,1,0.4000,7.250,31.000,1,0",
            ])
    }

    @Test func anUnwritableDestinationIsCannotCreateOutput() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let exporter = Exporter(connection: try ReportFixture.makeStore(at: folder.path("db")))
        let error = #expect(throws: ReportError.self) {
            try exporter.export(.events, toPath: folder.path("missing-folder/events.csv"))
        }
        guard case .cannotCreateOutput = error else {
            Issue.record("expected cannotCreateOutput, got \(String(describing: error))")
            return
        }
    }
}
