import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: `--out` never deletes or overwrites anything but its own report files.
///
/// Decisions tested here: `--out` names a folder; a symbolic link to a folder is followed (the user
/// named it), `..` is resolved lexically (`a/../b` is `b`, as in the shell). Inside the folder only the
/// report names are replaced, each by `rename(2)` of the report's own link through `current`, so a
/// symbolic link planted under a report file's name is replaced and its target is never written (`export --out FILE`, one file the user
/// named, writes through a link instead: `OutFileTests`). Staging folders are removed.
struct OutputFolderSafetyTests {
    let cli = try! CommandRunner()

    func database(_ scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("events.sqlite")
        // Two report placements (`source`), so the filtered run below names one the store has
        let lines = (1...30).map { Sample.shown($0, source: $0 % 3 == 0 ? "settings" : "onboarding") }
        #expect(
            try await cli.run([
                "import", try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n"), "--db", db,
            ]).status == 0)
        return db
    }

    /// Every path under `root` with its bytes (nil for folders, the destination for links).
    func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for case let relative as String in FileManager.default.enumerator(atPath: root) ?? .init() {
            let full = "\(root)/\(relative)"
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) {
                result[relative] = "-> " + target
                continue
            }
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: full, isDirectory: &isFolder)
            result[relative] =
                isFolder.boolValue
                ? "(folder)" : String(decoding: FileManager.default.contents(atPath: full) ?? Data(), as: UTF8.self)
        }
        return result
    }

    @Test func unrelatedFilesInTheFolderSurviveEveryKindOfRun() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out + "/keep/deeper", withIntermediateDirectories: true)
        let unrelated = [
            "notes.txt": "mine", ".hidden": "h", "keep/deeper/x.csv": "x", "encounter_funnel.csv.bak": "old",
            "Encounter_Funnel.CSV": "case", "report.html~": "backup",
        ]
        for (name, text) in unrelated { try scratch.write("out/\(name)", text) }
        let runs: [[String]] = [
            ["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out],
            ["report", "--nightly", "--out", out, "--now", "2025-12-01T02:00:00Z"],
            ["report", "--nightly", "--out", out, "--now", "2025-12-02T02:00:00Z"],
            ["report", "--from", "2025-11-28", "--to", "2025-11-30", "--out", out, "--placement", "settings"],
        ]
        for arguments in runs {
            let result = try await cli.run(arguments + ["--db", db])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let now = try snapshot(out)
            for (name, text) in unrelated { #expect(now[name] == text, "\(name) after \(arguments)") }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.contains("partial")
        }
        #expect(leftovers.isEmpty, "no staging folder is left: \(leftovers)")
    }

    @Test func aLinkPlantedUnderAReportNameIsReplacedAndItsTargetNeverWritten() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let victim = try scratch.write("victim.txt", "precious")
        for name in ["encounter_funnel.csv", "report.html", "run.json"] {
            try FileManager.default.createSymbolicLink(atPath: "\(out)/\(name)", withDestinationPath: victim)
        }
        let exportLink = scratch.path("events.csv")
        try FileManager.default.createSymbolicLink(atPath: exportLink, withDestinationPath: victim)
        #expect(
            try await cli.run(["report", "--nightly", "--out", out, "--db", db, "--now", "2025-12-01T02:00:00Z"]).status
                == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try await cli.run(["export", "events", "--out", exportLink, "--db", db]).status == 0)
        for name in ["encounter_funnel.csv", "report.html", "run.json"] {
            // The planted link gave way to the report's own link through `current` (ReportSetTests)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(out)/\(name)") == "current/\(name)")
            let type =
                try FileManager.default.attributesOfItem(atPath: "\(out)/current/\(name)")[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(name) is the run's own file")
        }
        // `export --out` names one file the user chose: a link there is written through (as `>` does) and
        // stays a link (OutFileTests); so the victim is written by the export only, never by the report.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: exportLink) == victim)
        #expect(try String(contentsOfFile: victim, encoding: .utf8).hasPrefix("id,"))
    }

    @Test func aLinkedFolderIsFollowedAndDotDotIsResolvedLexically() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        // --out is a symbolic link to a folder elsewhere holding a file of its own
        let elsewhere = scratch.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try scratch.write("elsewhere/own.txt", "own")
        try FileManager.default.createDirectory(atPath: scratch.path("links"), withIntermediateDirectories: true)
        let link = scratch.path("links/out")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        let linked = try await cli.run([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", link, "--db", db,
        ])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == elsewhere, "the link stays a link")
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/encounter_funnel.csv"))
        #expect(try snapshot(elsewhere)["own.txt"] == "own")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path("links")) == ["out"],
            "no staging left beside the link")
        // --out with .. segments: sub/../dotted is ./dotted; sub is neither created nor written
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path))
        let dotted = try await cli.run(
            ["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", "sub/../dotted", "--db", db],
            directory: scratch.url)
        #expect(dotted.status == 0, "\(dotted.stderr)")
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path))
        #expect(after.subtracting(before) == ["dotted"])
        #expect(FileManager.default.fileExists(atPath: scratch.path("dotted/placement_summary.csv")))
    }

    @Test func aFailedRunLeavesTheFolderExactlyAsItWas() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let out = scratch.path("out")
        #expect(
            try await cli.run(["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out, "--db", db]).status
                == 0)
        // A folder in the way of one report file makes the next run fail before any file is replaced
        try FileManager.default.removeItem(atPath: out + "/product_mix.csv")
        try FileManager.default.createDirectory(
            atPath: out + "/product_mix.csv/inside", withIntermediateDirectories: true)
        try scratch.write("out/product_mix.csv/inside/file", "kept")
        let before = try snapshot(out)
        let failed = try await cli.run([
            "report", "--from", "2025-11-28", "--to", "2025-11-30", "--out", out, "--db", db,
        ])
        #expect(failed.status == 73, "\(failed.stdout)\(failed.stderr)")
        #expect(try snapshot(out) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains("partial") }
                .isEmpty)
    }
}
