import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `paywall-analytics upload` against endpoints that answer as a hostile or broken collector would
/// (raw sockets on 127.0.0.1): the process never traps, never holds more than a bounded answer nor
/// waits past its total deadline, sends nowhere but the route under a base URL, and never lets the
/// answer's escape sequences reach the terminal or the stored pause reason raw.
@Suite(.serialized)
struct HostileAnswerTests {
    /// A device store with 10 events and no collector of its own.
    func harness() throws -> UploadHarness {
        let harness = try UploadHarness(startCollector: false)
        try harness.record(DeviceEvents.presentations(5))
        return harness
    }

    @Test func countsWhoseSumOverflowsAreAFailureNotATrap() async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: .overflow)
        let output = try await harness.upload(["--max-batches", "1"], endpoint: hostile.endpoint)
        #expect(output.status == 69, "\(output.status) \(output.stderr)")
        #expect(output.stderr.contains("does not account for every line sent"), "\(output.stderr)")
        #expect(harness.cursor == 0)
        #expect(hostile.requests.count == 1)
    }

    @Test(arguments: [HostileCollector.Mode.huge, .endless])
    func anAnswerLongerThanTheBoundIsCutAndNothingIsMarkedUploaded(mode: HostileCollector.Mode) async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: mode)
        // Run under GNU time for the process's peak memory (its last line of stderr, in KiB)
        let timed = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/time"))
        let output = try await timed.run(
            [
                "-f", "%M", harness.cli.executable.path, "upload", "--db", harness.device, "--endpoint",
                hostile.endpoint, "--forwarding", "device", "--max-batches", "1",
            ], environment: ["PAYWALL_COLLECTOR_KEY": harness.key])
        #expect(output.status == 69, "\(output.status) \(output.stderr)")
        #expect(
            output.stderr.contains("longer than 1048576 bytes") || output.stderr.contains("not valid HTTP"),
            "\(output.stderr)")
        #expect(harness.cursor == 0)
        // The answer was never held: the process's peak memory stays far below the 2 GiB announced
        // (or the endless stream), whatever the loader read before the cancellation landed
        let peakKiB = Int(output.stderr.split(separator: "\n").last ?? "") ?? -1
        #expect(peakKiB > 0 && peakKiB < 200_000, "peak \(peakKiB) KiB, \(hostile.sent) bytes sent")
    }

    @Test func anAnswerTrickledByteByByteEndsAtTheTotalDeadline() async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: .trickle)
        let started = Date()
        let output = try await harness.upload(["--max-batches", "1"], endpoint: hostile.endpoint)
        let seconds = Date().timeIntervalSince(started)
        // The answer takes 250 s to arrive in full; the upload's deadline is 30 s in all.
        #expect(output.status == 69, "\(output.status) \(output.stderr)")
        #expect(output.stderr.contains("did not answer before the timeout"), "\(output.stderr)")
        #expect(seconds < 200, "the upload waited \(seconds) s")
        #expect(harness.cursor == 0)
    }

    @Test(arguments: [
        "http://127.0.0.1:PORT/base?tenant=a", "http://127.0.0.1:PORT/base?tenant=a#frag",
        "http://127.0.0.1:PORT/base/?tenant=a", "http://127.0.0.1:PORT#frag", "http://127.0.0.1:PORT/?",
    ])
    func anEndpointWithAQueryOrFragmentIsRefusedAndNothingIsSent(template: String) async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: .overflow)
        let endpoint = template.replacingOccurrences(of: "PORT", with: String(hostile.port))
        let output = try await harness.upload(endpoint: endpoint)
        #expect(output.status == 64, "\(output.status) \(output.stderr)")
        #expect(
            output.stderr.contains("has a query") || output.stderr.contains("has a fragment"), "\(output.stderr)")
        #expect(output.stderr.contains("base URL"))
        #expect(hostile.requests.isEmpty)
    }

    @Test func aBaseURLWithAPathStillPostsToTheRouteUnderIt() async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: .overflow)
        _ = try await harness.upload(["--max-batches", "1"], endpoint: hostile.endpoint + "/base/")
        #expect(hostile.requests == ["POST /base/v1/events HTTP/1.1"])
    }

    @Test func escapeSequencesInTheAnswerReachNeitherTheTerminalNorThePauseReason() async throws {
        let harness = try harness()
        let hostile = try HostileCollector(mode: .escapes)
        let output = try await harness.upload(["--max-batches", "1"], endpoint: hostile.endpoint)
        #expect(output.status == 69, "\(output.status) \(output.stderr)")
        #expect(output.stderr.contains("HTTP 503"), "\(output.stderr)")
        let printed = output.stdout + output.stderr
        // Every control character but the lines' own newlines is shown escaped, never sent raw.
        let raw = printed.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
        }
        #expect(raw.isEmpty, "raw control characters printed: \(raw.map { $0.value })")
        #expect(printed.contains("\\u{1B}]0;PWNED\\u{7}"), "\(printed)")
        let connection = try Connection(path: harness.device, options: OpenOptions(readOnly: true, create: false))
        let reasons = try connection.all("SELECT reason FROM delivery_pauses") { $0.string(at: 0) ?? "" }
        #expect(!reasons.isEmpty)
        for reason in reasons {
            #expect(
                !reason.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(reason)")
            #expect(reason.contains("\\u{1B}[31mred"))
        }
    }

    @Test func aKeyRefusedAfterEarlierBatchesSaysWhatWasUploadedAndWhatIsKept() async throws {
        let harness = try UploadHarness(startCollector: false)
        try harness.record(DeviceEvents.presentations(1_000))  // two batches of 1,000
        let hostile = try HostileCollector(mode: .acceptOnceThenRefuse)
        let output = try await harness.upload(["--no-gzip"], endpoint: hostile.endpoint)
        #expect(output.status == 69, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("uploaded 1000,"), "\(output.stdout)")
        #expect(
            output.stderr.contains("this batch was not uploaded, and every event is kept that the collector has not"),
            "\(output.stderr)")
        #expect(!output.stderr.contains("nothing was uploaded"))
        #expect(harness.cursor > 0 && harness.cursor < 2_000)
    }
}
