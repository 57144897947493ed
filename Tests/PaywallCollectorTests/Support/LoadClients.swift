import Foundation
import PaywallLock

/// Clients that post batches of fresh events to the collector without pause, each on a keep-alive
/// connection (reopened after any failure), logging every id acknowledged with 200 and keeping every
/// batch not acknowledged to send again (as the uploader does).
final class LoadClients: @unchecked Sendable {
    private struct State {
        var port = 0
        var acked: Set<String> = []
        var generated: Set<String> = []
        var okReplies = 0
        var failures = 0
        var badCounts = 0
    }

    private let state = Lock(State())
    /// Signalled after each acknowledged batch, for ``waitForOKReplies(atLeast:)``.
    private let replied = NSCondition()
    private let running = Lock(true)
    private let finished = DispatchGroup()
    private let key: String

    init(clients: Int, key: String, pairsPerBatch: Int = 10) {
        self.key = key
        for _ in 0..<clients {
            finished.enter()
            let thread = Thread { [self] in
                clientLoop(pairs: pairsPerBatch)
                finished.leave()
            }
            thread.start()
        }
    }

    /// Where the collector listens now (0 while it is down).
    func setPort(_ port: Int) { state.withLock { $0.port = port } }

    var acked: Set<String> { state.withLock { $0.acked } }
    var generated: Set<String> { state.withLock { $0.generated } }
    var okReplies: Int { state.withLock { $0.okReplies } }
    /// 200 answers whose counts did not add up to the lines sent.
    var badCounts: Int { state.withLock { $0.badCounts } }

    /// Returns once at least `count` batches have been acknowledged with 200 since the clients
    /// started (true), or false after 120 s without that many (a collector that stopped answering).
    func waitForOKReplies(atLeast count: Int) -> Bool {
        let deadline = Date().addingTimeInterval(120)
        replied.lock()
        defer { replied.unlock() }
        while okReplies < count {
            if !replied.wait(until: deadline) { return okReplies >= count }
        }
        return true
    }

    /// Stops sending new batches; every client then resends what is unacknowledged until it is.
    func finish() {
        running.withLock { $0 = false }
        finished.wait()
    }

    private func clientLoop(pairs: Int) {
        var unacked: [(body: [UInt8], ids: [String])] = []
        var connection: HTTPConnection?
        var connectedPort = 0
        while running.withLock({ $0 }) || !unacked.isEmpty {
            let port = state.withLock { $0.port }
            guard port != 0 else {
                usleep(20_000)
                continue
            }
            if unacked.isEmpty {
                let batch = EventLines.batch(pairs: pairs)
                state.withLock { $0.generated.formUnion(batch.ids) }
                unacked.append((EventLines.body(batch.lines), batch.ids))
            }
            let (body, ids) = unacked[0]
            do {
                if connection == nil || connectedPort != port {
                    connection = try HTTPConnection(port: port, receiveTimeout: 30)
                    connectedPort = port
                }
                let request = HTTPRequestText.make(
                    "POST", "/v1/events",
                    headers: [
                        ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                        ("Authorization", "Bearer \(key)"),
                    ], body: body)
                guard connection!.send(request) else { throw CancellationError() }
                let reply = try connection!.readResponse()
                if reply.headers["connection"]?.lowercased() == "close" { connection = nil }
                if reply.status == 200 {
                    let accepted = reply.json["accepted"] as? Int ?? -1
                    let duplicates = reply.json["duplicates"] as? Int ?? -1
                    state.withLock { state in
                        state.acked.formUnion(ids)
                        state.okReplies += 1
                        if accepted + duplicates != ids.count { state.badCounts += 1 }
                    }
                    replied.lock()
                    replied.broadcast()
                    replied.unlock()
                    unacked.removeFirst()
                } else {
                    state.withLock { $0.failures += 1 }
                    usleep(20_000)
                }
            } catch {
                connection = nil
                state.withLock { $0.failures += 1 }
                usleep(20_000)
            }
        }
    }
}
