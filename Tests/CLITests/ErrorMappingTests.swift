import PaywallCollector
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import RevenueCatForwarder
import Testing

@testable import paywall_analytics

/// The executable's one table from library errors and outcomes to exit codes and advice
/// (`ErrorMapping.swift`); the commands' own tests prove the codes end to end.
struct ErrorMappingTests {
    @Test(arguments: [
        (StorageError.Kind.busy, Int32(75)), (.full, 74), (.ioError, 74), (.walUnavailable(mode: "delete"), 74),
        (.corrupt, 65), (.readOnly, 73), (.cannotOpen, 73), (.schemaTooNew(found: 3, known: 2), 65),
        (.foreignDatabase(expected: "PaywallAnalytics store", reason: "no events table"), 65), (.constraint, 70),
        (.other, 70),
    ])
    func mapsEachStorageKindToItsExitCode(kind: StorageError.Kind, code: Int32) {
        let mapped = CLIError(StorageError(code: 0, message: "", kind: kind))
        #expect(mapped.code.rawValue == code)
    }

    @Test func onlyTheCLISpellsTheDatabaseFlag() {
        // Given a read-only and a damaged database's errors
        for kind in [StorageError.Kind.readOnly, .corrupt, .foreignDatabase(expected: "store", reason: "no table")] {
            let error = StorageError(code: 0, message: "", path: "/tmp/x.sqlite", kind: kind)
            // Then the library's message names no flag, and the CLI's advice does
            #expect(!error.description.contains("--"), "\(error.description)")
            #expect(CLIError(error).message.contains("--db"), "\(CLIError(error).message)")
            #expect(CLIError(error).message.hasPrefix(error.diagnosis))
        }
    }

    @Test(arguments: [
        (ReportError.invalidDate("x"), Int32(64)), (.dateOutOfRange("0001-01-01"), 64),
        (.invalidRange(from: "b", to: "a"), 64),
        (.unknownTimeZone("Mars/Base"), 64), (.unsupportedTimeZone("X", date: "1900-01-01"), 64), (.invalidDays(0), 64),
        (.daysBeforeHistory(days: 30000, maximum: 20789), 64), (.invalidDuration("3x"), 64),
        (.durationOverCap("400d"), 64),
        (.busy(holder: "nightly"), 75), (.outputBusy(path: "out"), 75), (.notAStore(path: "db", missing: "events"), 65),
        (.cannotCreateOutput(path: "out", reason: "read-only"), 73), (.io(path: "out", reason: "EIO"), 74),
        (.storage(StorageError(code: 0, message: "", kind: .busy)), 75),
    ])
    func mapsEachReportErrorToItsExitCode(error: ReportError, code: Int32) {
        let mapped = CLIError(error)
        #expect(mapped.code.rawValue == code)
        #expect(mapped.showsUsage == (code == 64), "argument errors show the usage line")
        #expect(!error.description.contains("--"), "the library's message names no flag: \(error.description)")
    }

    @Test(arguments: [
        (ImportError.Kind.missingInput, Int32(66)), (.unreadable, 74), (.notAStore, 65), (.databaseFromStream, 65),
    ])
    func mapsEachImportErrorToItsExitCode(kind: ImportError.Kind, code: Int32) {
        #expect(CLIError(ImportError(kind, path: "in.ndjson", detail: "test")).code.rawValue == code)
    }

    @Test func mapsImportResults() {
        #expect(ExitCode(ImportResult(imported: 3)) == .success)
        #expect(ExitCode(ImportResult(imported: 3, quarantined: 1)) == .badInput)
        #expect(ExitCode(ImportResult(imported: 3, conflicts: 1)) == .badInput)
    }

    @Test func mapsForwardingPasses() {
        var unavailable = ForwardingSummary()
        unavailable.revenueCatUnavailable = true
        #expect(ExitCode(ForwardingPass.busy) == .temporaryFailure)
        #expect(ExitCode(ForwardingPass.completed(ForwardingSummary())) == .success)
        #expect(ExitCode(ForwardingPass.completed(unavailable)) == .unavailable)
        var refused = ForwardingSummary()
        refused.deadLettered = 1
        #expect(ExitCode(ForwardingPass.completed(refused)) == .badInput)
        refused.revenueCatUnavailable = true
        #expect(ExitCode(ForwardingPass.completed(refused)) == .badInput, "a refusal wins over a retry")
    }

    @Test(arguments: [
        (ListenSocket.Failure.badAddress("x"), Int32(64)), (.unresolved("nowhere", "no such host"), 64),
        (.addressInUse("127.0.0.1:8080"), 75), (.refused("0.0.0.0:80", "permission denied"), 74),
    ])
    func mapsEachListenFailureToItsExitCodeAndOnlyTheCLINamesTheFlag(failure: ListenSocket.Failure, code: Int32) {
        #expect(CLIError(failure).code.rawValue == code)
        #expect(!failure.description.contains("--"))
    }

    @Test func theCollectorsErrorsGetTheCLIsAdvice() {
        #expect(CLIError(CollectorError.noWriteKeys).code == .usage)
        #expect(CLIError(CollectorError.noWriteKeys).message.contains("paywall-analytics keys add NAME"))
        #expect(CLIError(CollectorError.serverStart).message.contains("--max-connections"))
        #expect(!CollectorError.serverStart.description.contains("--"))
    }

    @Test func anErrorNoRowKnowsIsInternal() {
        struct Unknown: Error {}
        #expect(CLIError(Unknown()).code == .internalError)
    }
}
