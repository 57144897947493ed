// A child process for the store's crash and lock tests (not shipped to users).
//
//   recorder-crash-helper record DB [SEED]  record events and flush in a loop; after each flush
//                                            print every acknowledged event id, one per line
//   recorder-crash-helper import DB FILE [N [M]]  import FILE (N events per transaction, the first
//                                            M of a first import without the id index), print
//                                            "opened", "committed imported=K" after each commit,
//                                            then the counts and peak memory (maxrss_kb)
//   recorder-crash-helper hold-lock DB      take the write lock, print "locked", keep it until a
//                                            line arrives on stdin (or the process is killed)
//   recorder-crash-helper paywall-open DB START_MS
//                                            the library (PaywallAnalytics) on DB with a manual clock
//                                            starting at START_MS: opens a paywall, shows it, advances
//                                            the clock 7 s, checkpoints, prints "checkpoint PW_ID
//                                            VISIBLE_S", then waits to be killed
import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore

/// Writes straight to file descriptor 1 (no buffering: what is printed is acknowledged).
func emit(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: recorder-crash-helper record|hold-lock DB [SEED]\n".utf8))
    exit(64)
}
let path = arguments[2]

switch arguments[1] {
case "record":
    let recorder: Recorder
    do {
        recorder = try Recorder(path: path, now: .system, policy: FlushPolicy(batchSize: 64, capacity: 100_000)) {
            diagnostic in
            FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(74)
    }
    var generator = SystemRandomNumberGenerator()
    let names: [EventName] = [.paywallShown, .paywallPlanSelected, .paywallPurchaseStarted, .paywallClosed]
    while true {
        var ids: [UUID] = []
        for _ in 0..<Int.random(in: 1...200, using: &generator) {
            let now = Now.system.milliseconds()
            let name = names.randomElement(using: &generator)!
            var properties = EventProperties(pwID: UUIDv7.make(milliseconds: now), source: "crash-test")
            if name == .paywallClosed {
                properties.result = .dismissed
                properties.via = .closeButton
                properties.openS = 1
            }
            if name == .paywallPlanSelected || name == .paywallPurchaseStarted { properties.product = "monthly" }
            let event = EventRecord(
                id: UUIDv7.make(milliseconds: now), name: name, occurredAt: now,
                userID: "crash-user", properties: properties)
            recorder.record(event)
            ids.append(event.id)
        }
        do { try await recorder.flush() } catch {
            FileHandle.standardError.write(Data("flush failed: \(error)\n".utf8))
            continue
        }
        emit(ids.map(\.uuidString).joined(separator: "\n"))
    }
case "hold-lock":
    do {
        let connection = try Schema.open(path: path)
        try connection.execute(
            "BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES ('holder', 'hold-lock') ON CONFLICT(key) DO NOTHING")
        emit("locked")
        _ = readLine()
        try connection.execute("COMMIT")
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(74)
    }
case "import":
    // recorder-crash-helper import DB FILE [EVENTS-PER-TRANSACTION [FIRST-IMPORT-EVENTS-BEFORE-INDEX]]:
    // print "opened" once the store is open, "committed imported=N" after each committed transaction
    // (N: the events imported so far), then the counts and the peak resident memory.
    do {
        let store = try EventStore(path: path, now: .system)
        let transaction = arguments.count > 4 ? Int(arguments[4]) ?? 100_000 : 100_000
        let beforeIndex = arguments.count > 5 ? Int(arguments[5]) ?? 1_000_000 : 1_000_000
        // Batches no larger than a transaction, so a transaction holds the events asked for.
        let options = ImportOptions(
            batchSize: min(10_000, transaction), transactionEvents: transaction,
            firstImportEventsBeforeIndex: beforeIndex)
        emit("opened")
        let result = try Importer(store: store, options: options).importFiles([arguments[3]]) { progress in
            emit("committed imported=\(progress.result.imported)")
        }
        let peak = peakResidentKilobytes()
        emit(
            "imported=\(result.imported) duplicates=\(result.duplicates) quarantined=\(result.quarantined) conflicts=\(result.conflicts) maxrss_kb=\(peak)"
        )
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(74)
    }
case "paywall-open":
    // Time is driven here, so the visible time the next start closes the paywall with is known exactly.
    let start = arguments.count > 3 ? Int64(arguments[3]) ?? 1_764_400_000_000 : 1_764_400_000_000
    let clock = ManualClock()
    let origin = clock.now
    let now = Now { start + Int64(origin.duration(to: clock.now).components.seconds) * 1000 }
    do {
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: path, forwarding: .off, checkpointInterval: nil), clock: clock,
            now: now)
        let paywall = try analytics.tracker.open(source: "killed", userID: "crash-user")
        paywall.appeared()
        clock.advance(by: .seconds(3))
        paywall.selectPlan("pro_annual")
        clock.advance(by: .seconds(4))
        analytics.tracker.checkpoint()
        emit("checkpoint \(paywall.pwID.uuidString) 7.0")
        _ = readLine()  // killed before a line ever comes
        withExtendedLifetime(analytics) {}
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(74)
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(64)
}

/// This process's peak resident memory in KiB: `VmHWM` on Linux (per address space, so unlike
/// `ru_maxrss` it does not inherit the parent's peak across fork and exec), `ru_maxrss` elsewhere.
func peakResidentKilobytes() -> Int {
    #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss / 1024)
    #endif
}
