import Foundation
import PaywallCollector
import PaywallTestSupport
import Testing

/// Real nginx in front of the collector, terminating TLS with a self-signed certificate made by
/// openssl in the test, configured as docs/server.md shows.
@Suite(.serialized)
struct CollectorNginxTests {
    /// A free port on 127.0.0.1 (bound, read, released; nginx binds it right after).
    func freePort() throws -> Int {
        let socket = try ListenSocket.bind(host: "127.0.0.1", port: 0)
        defer { close(socket.descriptor) }
        return socket.port
    }

    func run(_ tool: String, _ arguments: [String]) throws -> CommandRunner.Output {
        try CommandRunner(executable: URL(fileURLWithPath: tool)).runBlocking(arguments)
    }

    @Test func postsThroughNginxWithTLS() throws {
        let harness = try CollectorHarness()
        let folder = harness.folder
        let made = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost",
                "-keyout", folder.path("tls.key"), "-out", folder.path("tls.crt"),
            ])
        try #require(made.status == 0, "openssl: \(made.stderr)")
        var nginx: Process?
        var port = 0
        for _ in 0..<5 where nginx == nil {
            port = try freePort()
            let config = NginxConfig.collectorProxy(
                listenPort: port, collectorPort: harness.port, certificate: folder.path("tls.crt"),
                key: folder.path("tls.key"), prefix: folder.url.path)
            try config.write(toFile: folder.path("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = [
                "-p", folder.url.path, "-c", folder.path("nginx.conf"), "-e", folder.path("nginx-error.log"), "-g",
                "daemon off;",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var up = false
            for _ in 0..<100 where !up && process.isRunning {
                usleep(100_000)
                up = (try? HTTPConnection(port: port)) != nil
            }
            if up {
                nginx = process
            } else if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        let proxy = try #require(
            nginx,
            "nginx did not start: \((try? String(contentsOfFile: folder.path("nginx-error.log"), encoding: .utf8)) ?? "")"
        )
        defer {
            kill(proxy.processIdentifier, SIGQUIT)
            proxy.waitUntilExit()
        }
        let batch = EventLines.batch(pairs: 10)
        let file = folder.path("batch.ndjson")
        FileManager.default.createFile(atPath: file, contents: Data(EventLines.body(batch.lines)))
        let url = "https://localhost:\(port)/v1/events"
        let curl = try run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", folder.path("tls.crt"), "--resolve", "localhost:\(port):127.0.0.1",
                "-X", "POST", "--data-binary", "@\(file)", "-H", "Content-Type: application/x-ndjson",
                "-H", "X-Paywall-Forwarding: collector", "-H", "Authorization: Bearer \(harness.key)",
                "-w", "\n%{http_code}", url,
            ])
        #expect(curl.status == 0, "curl: \(curl.stderr)")
        #expect(curl.stdout.hasSuffix("\n200"))
        #expect(curl.stdout.hasPrefix("{\"accepted\":20,"))
        let refused = try run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", folder.path("tls.crt"), "--resolve", "localhost:\(port):127.0.0.1",
                "-X", "POST", "--data-binary", "@\(file)", "-H", "Content-Type: application/x-ndjson",
                "-H", "X-Paywall-Forwarding: collector", "-o", "/dev/null", "-w", "%{http_code}", url,
            ])
        #expect(refused.stdout == "401")
        let plain = try run(
            "/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz"])
        #expect(plain.stdout == "400", "nginx speaks only TLS on this port")
        #expect(try harness.storedIDs() == Set(batch.ids))

        // RevenueCat's webhook through the same proxy, with a secret made while serve runs.
        let added = try harness.cli.runBlocking(["keys", "add", "revenuecat", "--webhook", "--db", harness.db])
        try #require(added.status == 0, "keys add: \(added.stderr)")
        let secret = added.stdout.trimmingCharacters(in: .newlines)
        let webhookID = UUID().uuidString
        let webhookFile = folder.path("webhook.json")
        FileManager.default.createFile(
            atPath: webhookFile, contents: Data(RecordedWebhooks.test(id: webhookID).utf8))
        let webhookURL = "https://localhost:\(port)\(Collector.webhookPath)"
        let webhook = try run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", folder.path("tls.crt"), "--resolve", "localhost:\(port):127.0.0.1",
                "-X", "POST", "--data-binary", "@\(webhookFile)", "-H", "Content-Type: application/json",
                "-H", "Authorization: \(secret)", "-w", "\n%{http_code}", webhookURL,
            ])
        #expect(webhook.stdout == "{\"outcome\":\"stored\"}\n200", "curl: \(webhook.stderr)")
        #expect(try harness.count("SELECT count(*) FROM subscription_events WHERE id = '\(webhookID)'") == 1)
    }
}
