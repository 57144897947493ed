import Foundation
import PaywallTestSupport
import Testing

/// The same id with other content is a conflict, not a duplicate: counted apart, the incoming
/// version quarantined with the fields that differ, exit 65, the stored row untouched. Ids compare
/// in any letter case. Run through the built binary.
struct ImportConflictTests {
    let cli = try! CommandRunner()

    static let id = "0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B"
    static let pwID = "0193A1B2-C3D4-7000-8000-000000000001"

    static func closed(id: String, result: String, via: String, user: String = "secret-user-41") -> String {
        #"{"id":"\#(id)","name":"paywall_closed","occurred_at":1764400005000,"user_id":"\#(user)","catalog_version":1,"#
            + #""pw_id":"\#(pwID)","source":"onboarding","product":"annual","result":"\#(result)","via":"\#(via)","open_s":5}"#
    }

    static func shown(id: String, source: String, user: String) -> String {
        #"{"id":"\#(id)","name":"paywall_shown","occurred_at":1764400000000,"user_id":"\#(user)","catalog_version":1,"#
            + #""pw_id":"\#(pwID)","source":"\#(source)"}"#
    }

    /// The stored events' rows of `export events` (header dropped).
    func storedEvents(_ db: String) async throws -> [String] {
        let export = try await cli.run([
            "export", "events", "--out", "-", "--db", db, "--from", "2025-01-01", "--to", "2026-12-31",
        ])
        #expect(export.status == 0, "\(export.stderr)")
        return Array(export.stdout.split(whereSeparator: \.isNewline).dropFirst().map(String.init))
    }

    func quarantine(_ db: String) async throws -> String {
        let export = try await cli.run(["export", "quarantine", "--out", "-", "--db", db])
        #expect(export.status == 0, "\(export.stderr)")
        return export.stdout
    }

    @Test func theSameIdWithAnotherSourceAndUserInASecondFileIsAConflict() async throws {
        // Given a store holding an impression, and a second file reusing its id with another source and user
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let first = try scratch.write(
            "a.ndjson", Self.shown(id: Self.id, source: "onboarding", user: "secret-user-41") + "\n")
        let second = try scratch.write(
            "b.ndjson", Self.shown(id: Self.id, source: "settings", user: "secret-user-42") + "\n")
        #expect(try await cli.run(["import", first, "--db", db]).status == 0)
        // When the second file is imported
        let result = try await cli.run(["import", second, "--db", db])
        // Then it is counted as a conflict, exits 65, names the count but no user id
        #expect(result.status == 65)
        #expect(result.stdout == "imported 0, duplicates 0, conflicts 1, quarantined 0\n")
        #expect(result.stderr.contains("1 event reused the id of a stored event with other content"))
        #expect(!result.stderr.contains("secret-user") && !result.stdout.contains("secret-user"))
        // And the stored row is untouched, the incoming version is quarantined with what differs
        let rows = try await storedEvents(db)
        #expect(rows.count == 1)
        #expect(rows.first?.contains("secret-user-41") == true && rows.first?.contains("onboarding") == true)
        let quarantined = try await quarantine(db)
        #expect(quarantined.contains("differs in user_id, source"), "\(quarantined)")
        #expect(quarantined.contains("b.ndjson"))
        #expect(quarantined.contains("secret-user-42") && quarantined.contains("settings"))
        // And importing the second file again quarantines nothing twice, still a conflict
        let again = try await cli.run(["import", second, "--db", db])
        #expect(again.status == 65)
        #expect(again.stdout == "imported 0, duplicates 0, conflicts 1, quarantined 0\n")
        #expect(
            try await quarantine(db).split(whereSeparator: \.isNewline).count
                == quarantined.split(whereSeparator: \.isNewline).count)
    }

    @Test func aPurchasedCloseUnderTheLowerCaseIdOfAStoredDismissalIsAConflict() async throws {
        // Given a dismissed close, then a purchased close with the same id in lower case, in one file
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let file = try scratch.write(
            "closes.ndjson",
            [
                Self.closed(id: Self.id, result: "dismissed", via: "close_button"),
                Self.closed(id: Self.id.lowercased(), result: "purchased", via: "auto"),
            ].joined(separator: "\n") + "\n")
        // When it is imported
        let result = try await cli.run(["import", file, "--db", db])
        // Then the purchase is not lost silently: a conflict, exit 65
        #expect(result.status == 65)
        #expect(result.stdout == "imported 1, duplicates 0, conflicts 1, quarantined 0\n")
        let rows = try await storedEvents(db)
        #expect(rows.count == 1)
        #expect(rows.first?.contains("dismissed") == true)
        let quarantined = try await quarantine(db)
        #expect(quarantined.contains("differs in result, via"), "\(quarantined)")
        #expect(quarantined.contains("purchased"))
        #expect(quarantined.contains(",2,"), "the conflict keeps its line number: \(quarantined)")
    }

    @Test func anIdenticalRepeatIsStillADuplicateWhateverTheIdsLetterCase() async throws {
        // Given an event, and the same event again with its ids in lower case, in a second file and in the same one
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let line = Self.closed(id: Self.id, result: "purchased", via: "auto")
        let lower = Self.closed(id: Self.id.lowercased(), result: "purchased", via: "auto")
            .replacingOccurrences(of: Self.pwID, with: Self.pwID.lowercased())
        let first = try scratch.write("a.ndjson", line + "\n" + lower + "\n")
        let second = try scratch.write("b.ndjson", lower + "\n")
        // When both are imported
        let one = try await cli.run(["import", first, "--db", db])
        let two = try await cli.run(["import", second, "--db", db])
        // Then the repeats are duplicates, exit 0, nothing quarantined
        #expect(one.status == 0)
        #expect(one.stdout == "imported 1, duplicates 1, conflicts 0, quarantined 0\n")
        #expect(two.status == 0)
        #expect(two.stdout == "imported 0, duplicates 1, conflicts 0, quarantined 0\n")
        #expect(try await quarantine(db).split(whereSeparator: \.isNewline).count == 1)
    }
}
