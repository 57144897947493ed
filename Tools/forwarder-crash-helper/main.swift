// A child process for the forwarder's crash and cross-process tests (not shipped to users).
//
//   forwarder-crash-helper forward DB PORT [NOW_MS] [LEASE_MS]
//       runs one forwarding pass from the SQLite outbox at DB to http://127.0.0.1:PORT with the
//       key from REVENUECAT_API_KEY, "now" fixed at NOW_MS when given, and prints one line:
//       `busy` or `delivered=N will_retry=N dead_lettered=N requests=N unavailable=0|1 next=MS`
import Foundation
import PaywallCore
import PaywallStore
import RevenueCatForwarder

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("forwarder-crash-helper: \(message)\n".utf8))
    exit(code)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, arguments[1] == "forward", let port = UInt16(arguments[3]) else {
    fail("usage: forwarder-crash-helper forward DB PORT [NOW_MS] [LEASE_MS]", code: 64)
}
let now = arguments.count > 4 ? Int64(arguments[4]).map(Now.constant) ?? .system : .system
let leaseMs = arguments.count > 5 ? Int64(arguments[5]) ?? 60_000 : 60_000

do {
    let key = try APIKey.resolve(configured: nil, environment: ProcessInfo.processInfo.environment).key
    let store = try EventStore(path: arguments[2], now: now)
    let configuration = ForwarderConfiguration(
        apiKey: key,
        endpoint: URL(string: "http://127.0.0.1:\(port)")!,
        leaseDuration: .milliseconds(leaseMs),
        leaseOwner: "crash-helper-\(ProcessInfo.processInfo.processIdentifier)",
        retryPolicy: RetryPolicy(base: .seconds(1), cap: .seconds(60), random: { 0.5 })
    )
    let forwarder = Forwarder(
        outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
        configuration: configuration, now: now)
    switch try await forwarder.forwardOnce() {
    case .busy:
        print("busy")
    case .completed(let summary):
        print(
            "delivered=\(summary.delivered) will_retry=\(summary.willRetry) dead_lettered=\(summary.deadLettered) "
                + "requests=\(summary.requests) unavailable=\(summary.revenueCatUnavailable ? 1 : 0) next=\(summary.nextAttemptAt ?? -1)"
        )
    }
} catch let error as APIKeyError {
    fail("\(error)", code: 64)
} catch {
    fail("\(error)", code: 74)
}
