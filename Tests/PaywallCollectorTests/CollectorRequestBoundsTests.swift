import Foundation
import PaywallGzip
import PaywallTestSupport
import Testing

/// Memory, answer and disk per request are bounded, whatever a holder of the public write key
/// sends: a 16 KB gzip body of millions of junk lines is refused (413) before any line is
/// validated, without the collector's memory growing; the answer lists the first refused lines and
/// counts the rest; the quarantine keeps a bounded number of bytes per request; bad limits are
/// usage errors (64), never a crash. The built `serve` on 127.0.0.1.
@Suite(.serialized)
struct CollectorRequestBoundsTests {
    /// The peak resident memory of `pid`, in KiB (`VmHWM`).
    func peakKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    func storeBytes(_ harness: CollectorHarness) -> Int {
        ["", "-wal"].reduce(0) { sum, suffix in
            sum + ((try? FileManager.default.attributesOfItem(atPath: harness.db + suffix)[.size] as? Int) ?? 0)
        }
    }

    @Test func millionsOfTinyLinesAre413BeforeAnyIsValidated() throws {
        let harness = try CollectorHarness()
        let before = peakKiB(harness.server.process.processIdentifier)
        // 8,388,608 lines of one byte: 16 MiB gunzipped (the whole allowance), 16 KB on the wire
        var body = [UInt8](repeating: 0x0A, count: 8_388_608 * 2)
        for index in stride(from: 0, to: body.count, by: 2) { body[index] = 0x78 }
        let reply = try harness.post(body, gzip: true)
        #expect(reply.status == 413, "\(reply.status) \(reply.text)")
        #expect(reply.text.contains("8388608 lines, more than the 10000"), "\(reply.text)")
        #expect(reply.body.count < 1_000)
        // The peak stays within the gunzipped allowance and its copies, far from a per-line cost
        let after = peakKiB(harness.server.process.processIdentifier)
        #expect(after - before < 200_000, "peak RSS grew from \(before) KiB to \(after) KiB")
        #expect(harness.quarantined == 0 && harness.events == 0)
    }

    @Test func theAnswerListsTheFirstRefusedLinesAndCountsTheRest() throws {
        let harness = try CollectorHarness()
        let lines = (0..<10_000).map { "junk-\($0)" }
        let reply = try harness.post(EventLines.body(lines), gzip: true)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["quarantined"] as? Int == 10_000)
        #expect((reply.json["rejected"] as? [Any])?.count == 100)
        #expect(reply.json["rejected_omitted"] as? Int == 9_900)
        #expect(reply.body.count < 64 << 10, "\(reply.body.count) bytes")
        // With --max-rejections 3 the list is three long
        harness.server.stop()
        try harness.restart(arguments: ["--max-rejections", "3"])
        let small = try harness.post(EventLines.body(["a", "b", "c", "d", "e"]))
        #expect((small.json["rejected"] as? [Any])?.count == 3 && small.json["rejected_omitted"] as? Int == 2)
    }

    @Test func theQuarantineKeepsABoundedNumberOfBytesPerRequest() throws {
        let harness = try CollectorHarness()
        let event = EventLines.presentation()
        #expect(try harness.post(EventLines.body(event.lines)).status == 200)
        _ = try harness.cli.runBlocking(["forget", "--user", "nobody", "--db", harness.db])  // checkpoint
        let before = storeBytes(harness)
        // 15 distinct junk lines of almost 1 MiB each: 15 MiB gunzipped, ~16 KB on the wire
        let lines = (0..<15).map { "\($0)-" + String(repeating: "a", count: 1_048_000) }
        let reply = try harness.post(EventLines.body(lines), gzip: true)
        #expect(reply.status == 200 && reply.json["quarantined"] as? Int == 15, "\(reply.text.prefix(300))")
        #expect(harness.quarantined == 15)
        _ = try harness.cli.runBlocking(["forget", "--user", "nobody", "--db", harness.db])
        let grown = storeBytes(harness) - before
        #expect(grown < 512 << 10, "the store grew by \(grown) bytes")
        // Each line is still identified by its whole bytes: the same body again is 15 repeats
        let again = try harness.post(EventLines.body(lines), gzip: true)
        #expect(again.json["quarantined"] as? Int == 15 && harness.quarantined == 15)
    }

    @Test(arguments: [
        ["--max-connections", "5000000000"], ["--timeout", "5000000000"], ["--queue", "99999999999"],
        ["--max-lines", "0"], ["--max-rejections", "-1"], ["--max-quarantine-bytes", "0"],
    ])
    func limitsOutOfRangeAreUsageErrors(arguments: [String]) throws {
        let folder = TemporaryDirectory(prefix: "collector-limits")
        let cli = try CommandRunner(product: "paywall-analytics")
        let db = folder.path("c.sqlite")
        #expect(try cli.runBlocking(["keys", "add", "k", "--db", db]).status == 0)
        let result = try cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", db] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(arguments[0]), "\(result.stderr)")
    }
}
