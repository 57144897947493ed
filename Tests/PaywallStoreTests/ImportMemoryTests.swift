import Foundation
import PaywallCore
import PaywallStore
import PaywallTestSupport
import Testing

struct ImportMemoryTests {
    struct Run {
        var imported = -1
        var peakKilobytes = -1
    }

    func importInChild(_ file: String, directory: TemporaryDirectory, name: String) async throws -> Run {
        let child = try ChildProcess(
            ["import", directory.path("\(name).sqlite"), file],
            errorsTo: directory.url.appendingPathComponent("\(name)-stderr"))
        let output = String(decoding: await child.readAll(), as: UTF8.self)
        await child.waitForExit()
        var run = Run()
        for field in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            if parts[0] == "imported" { run.imported = value }
            if parts[0] == "maxrss_kb" { run.peakKilobytes = value }
        }
        #expect(run.imported >= 0, "helper printed \(output); stderr: \(child.stderrText)")
        return run
    }

    @Test func aLargeFileImportsInTheMemoryOfASmallOne() async throws {
        // Given a 10-line file and a 40 MB file (256 events, each padded with 160 KB of JSON whitespace)
        let directory = TemporaryDirectory()
        let small = directory.path("small.ndjson")
        try ((0..<10).map { NDJSONLine.encode(Fixtures.event($0)) }.joined(separator: "\n") + "\n")
            .write(toFile: small, atomically: false, encoding: .utf8)
        let large = directory.path("large.ndjson")
        _ = FileManager.default.createFile(atPath: large, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: large))
        let padding = String(repeating: " ", count: 160 << 10)
        for index in 0..<256 {
            let line = NDJSONLine.encode(Fixtures.event(index))
            handle.write(Data(("{" + padding + line.dropFirst() + "\n").utf8))
        }
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: large)[.size] as? Int)
        #expect(size > 40 << 20)
        // When each is imported by a separate process
        let smallRun = try await importInChild(small, directory: directory, name: "small")
        let largeRun = try await importInChild(large, directory: directory, name: "large")
        // Then everything is imported and the large file needs far less extra memory than its size
        #expect(smallRun.imported == 10)
        #expect(largeRun.imported == 256)
        let extra = largeRun.peakKilobytes - smallRun.peakKilobytes
        print("import memory: small \(smallRun.peakKilobytes) KB, large \(largeRun.peakKilobytes) KB")
        #expect(extra < 20 << 10, "peak memory grew by \(extra) KB for a \(size >> 10) KB file")
    }
}

struct ImportStandardInputTests {
    @Test func importsNDJSONFromStandardInput() async throws {
        // Given a child process importing `-` with three lines (one bad) written to its stdin
        let directory = TemporaryDirectory()
        let child = try ChildProcess(
            ["import", directory.path("stdin.sqlite"), "-"],
            errorsTo: directory.url.appendingPathComponent("stderr"))
        let reading = Task { await child.readAll() }
        child.send(NDJSONLine.encode(Fixtures.event(0)))
        child.send(#"{"name":"paywall_shown"}"#)
        child.send(NDJSONLine.encode(Fixtures.event(1)))
        try child.input.fileHandleForWriting.close()
        // Then the counts reflect the stream
        let output = String(decoding: await reading.value, as: UTF8.self)
        await child.waitForExit()
        let counts = output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(counts.hasPrefix("imported=2 duplicates=0 quarantined=1"), "\(output) stderr: \(child.stderrText)")
    }
}
