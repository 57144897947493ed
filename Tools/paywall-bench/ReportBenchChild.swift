import Foundation
import PaywallCore
import PaywallLock
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The measured operations of `paywall-bench report`, each run in its own process so its peak
/// resident memory is its own: prints "<seconds> <peak RSS in KiB>", then, for a report or nightly
/// run, one line per stage: "stage<TAB>name<TAB>wall seconds<TAB>CPU seconds".
enum ReportBenchChild {
    static func run(_ arguments: [String]) throws {
        // With the subscription events' tables, as the command line opens a store
        let connection = try Schema.open(
            path: arguments[1], registering: [ReportSchema.migrations, SubscriptionSchema.migrations])
        let seconds: Double
        let stages = PaywallLock.Lock<[ReportStage]>([])
        switch arguments[0] {
        case "report":
            var reports = FunnelReport(connection: connection, now: .system)
            reports.onStage = { stage in stages.withLock { $0.append(stage) } }
            seconds = try BenchSupport.seconds {
                try reports.report(
                    from: try ReportDate(arguments[3]), to: try ReportDate(arguments[4]), into: arguments[2])
            }
        case "nightly":
            var reports = FunnelReport(connection: connection, now: .system)
            reports.onStage = { stage in stages.withLock { $0.append(stage) } }
            seconds = try BenchSupport.seconds { try reports.nightly(into: arguments[2], version: "bench") }
        case "export":
            seconds = try BenchSupport.seconds {
                try Exporter(connection: connection).export(.events, raw: true, toPath: arguments[2])
            }
        case "export-ndjson":
            seconds = try BenchSupport.seconds {
                try Exporter(connection: connection).exportEventsNDJSON(toPath: arguments[2])
            }
        default:
            throw BenchError("unknown child \(arguments[0])")
        }
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let kibibytes = usage.ru_maxrss
        #else
            getrusage(RUSAGE_SELF, &usage)
            let kibibytes = usage.ru_maxrss / 1024  // bytes on Darwin
        #endif
        print(String(format: "%.3f", seconds), kibibytes)
        for stage in stages.withLock({ $0 }) {
            print(
                "stage\t\(stage.name)\t" + String(format: "%.3f\t%.3f\t", stage.seconds, stage.cpuSeconds)
                    + String(stage.peakMiB))
        }
    }
}
