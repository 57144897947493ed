import Foundation
import PaywallTestSupport
import Testing

/// The write key and the RevenueCat key are searched for in every byte the collector wrote: the
/// database, its WAL and shared-memory files, stdout, stderr, and the metrics it served.
@Suite(.serialized)
struct CollectorSecretsTests {
    @Test func noKeyAndNoUserIDInAnyByteWritten() throws {
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let revenueCatKey = "appl_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let harness = try CollectorHarness(
            arguments: ["--revenuecat-endpoint", standIn.baseURL.absoluteString],
            environment: ["REVENUECAT_API_KEY": revenueCatKey])
        #expect(harness.server.stderrText.contains("forwarding impressions to RevenueCat"))
        let user = "secret-user-\(UUID().uuidString)"
        let batch = EventLines.batch(pairs: 5, user: user)
        #expect(
            try harness.post(EventLines.body(batch.lines + ["{\"user_id\":\"\(user)\",\"broken\":true}"])).status == 200
        )
        // Impressions the install forwarded itself are never sent again from here.
        let forwardedByDevice = EventLines.batch(pairs: 3, user: user)
        #expect(try harness.post(EventLines.body(forwardedByDevice.lines), forwarding: "device").status == 200)
        #expect(try harness.post(EventLines.body(batch.lines), key: harness.key + "x").status == 401)
        #expect(try harness.post(Array(repeating: 0x41, count: 2 << 20)).status == 413)
        // The forwarding loop runs with the RevenueCat key: wait until the stand-in has every impression.
        let impressions = Set(stride(from: 0, to: batch.ids.count, by: 2).map { batch.ids[$0] })
        #expect(
            Eventually.holdsBlocking(every: .milliseconds(100)) {
                Set(standIn.acceptedEventIDs.keys.map { $0.uppercased() }).isSuperset(of: impressions)
            })
        #expect(Set(standIn.acceptedEventIDs.keys.map { $0.uppercased() }).isDisjoint(with: forwardedByDevice.ids))
        #expect(standIn.acceptedEventIDs.values.allSatisfy { $0 == 1 })
        let metrics = try harness.get("/metrics").text
        try metrics.write(toFile: harness.folder.path("metrics.txt"), atomically: true, encoding: .utf8)
        harness.server.stop(SIGKILL)  // keeps the WAL and shm files on disk, to be searched too
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.folder.url.path).map(
            harness.folder.path)
        #expect(files.contains { $0.hasSuffix("-wal") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(harness.key.utf8)) == nil, "the write key is in \(file)")
            #expect(bytes.range(of: Data(harness.key.dropFirst(4).utf8)) == nil, "the write key's body is in \(file)")
            #expect(bytes.range(of: Data(revenueCatKey.utf8)) == nil, "the RevenueCat key is in \(file)")
            if !file.contains("central.sqlite") {
                #expect(bytes.range(of: Data(user.utf8)) == nil, "a user id is in \(file)")
            }
        }
    }
}
