import Foundation
import PaywallCollector
import PaywallGzip
import PaywallSQLite
import PaywallTestSupport

/// NDJSON event lines with fresh ids, as an app install's uploader would send them.
enum EventLines {
    /// A presentation: an impression and its close, for user `user`.
    static func presentation(user: String = "user-\(UUID().uuidString.prefix(8))", at time: Int64 = 1_764_400_000_000)
        -> (lines: [String], ids: [String])
    {
        let pw = UUID().uuidString
        let shown = UUID().uuidString
        let closed = UUID().uuidString
        return (
            [
                "{\"id\":\"\(shown)\",\"name\":\"paywall_shown\",\"occurred_at\":\(time),\"user_id\":\"\(user)\","
                    + "\"catalog_version\":1,\"pw_id\":\"\(pw)\",\"source\":\"onboarding\"}",
                "{\"id\":\"\(closed)\",\"name\":\"paywall_closed\",\"occurred_at\":\(time + 4_000),\"user_id\":\"\(user)\","
                    + "\"catalog_version\":1,\"pw_id\":\"\(pw)\",\"source\":\"onboarding\",\"result\":\"dismissed\","
                    + "\"via\":\"close_button\",\"open_s\":4}",
            ], [shown, closed]
        )
    }

    /// `pairs` presentations: their lines and ids.
    static func batch(pairs: Int, user: String = "user-\(UUID().uuidString.prefix(8))") -> (
        lines: [String], ids: [String]
    ) {
        var lines: [String] = []
        var ids: [String] = []
        for index in 0..<pairs {
            let one = presentation(user: user, at: 1_764_400_000_000 + Int64(index) * 10_000)
            lines += one.lines
            ids += one.ids
        }
        return (lines, ids)
    }

    static func body(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }
}

/// A fresh store with a write key, and the built collector serving it.
final class CollectorHarness: @unchecked Sendable {
    let folder: TemporaryDirectory
    let db: String
    let key: String
    let cli: CommandRunner
    var server: CollectorProcess

    init(
        arguments: [String] = [], environment: [String: String] = [:], keyName: String = "ios-app",
        wrapper: [String] = [], folder: TemporaryDirectory = TemporaryDirectory(prefix: "collector-tests")
    ) throws {
        self.folder = folder
        db = folder.path("central.sqlite")
        cli = try CommandRunner(product: "paywall-analytics")
        let made = try cli.runBlocking(["keys", "add", keyName, "--db", db])
        guard made.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: made.stderr])
        }
        key = made.stdout.trimmingCharacters(in: .newlines)
        server = try CollectorProcess(
            db: db, folder: folder, arguments: arguments, environment: environment, wrapper: wrapper)
    }

    var port: Int { server.port }

    /// Restarts the collector on the same store (after a stop or a kill).
    func restart(arguments: [String] = [], environment: [String: String] = [:]) throws {
        server = try CollectorProcess(db: db, folder: folder, arguments: arguments, environment: environment)
    }

    /// Posts `body` on a fresh connection and reads the answer.
    func post(
        _ body: [UInt8], key: String? = nil, gzip: Bool = false, contentType: String = "application/x-ndjson",
        forwarding: String = "collector", extraHeaders: [(String, String)] = []
    ) throws -> HTTPReply {
        var headers: [(String, String)] = [("Content-Type", contentType), ("X-Paywall-Forwarding", forwarding)]
        if let key = key ?? Optional(self.key), !key.isEmpty { headers.append(("Authorization", "Bearer \(key)")) }
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        let connection = try HTTPConnection(port: port)
        connection.send(
            HTTPRequestText.make(
                "POST", "/v1/events", headers: headers + extraHeaders,
                body: gzip ? Gzip.deflate(body) : body))
        return try connection.readResponse()
    }

    func get(_ path: String, method: String = "GET") throws -> HTTPReply {
        let connection = try HTTPConnection(port: port)
        connection.send(HTTPRequestText.make(method, path))
        return try connection.readResponse()
    }

    /// Row counts of the store, read on a connection of the test's own.
    func count(_ sql: String) throws -> Int {
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        return Int(try connection.scalar(sql)?.int64 ?? -1)
    }

    var events: Int { (try? count("SELECT count(*) FROM events")) ?? -1 }
    var quarantined: Int { (try? count("SELECT count(*) FROM quarantine")) ?? -1 }

    /// The ids stored, each with how often (always 1: `id` is unique).
    func storedIDs() throws -> Set<String> {
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        return Set(try connection.all("SELECT id FROM events") { $0.string(at: 0) ?? "" })
    }
}
