import Foundation
import PaywallTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A test's child process gets its standard input, output and error and nothing else of the test
/// process (no other test's pipe or socket), and launches from many threads at once all succeed while
/// other threads open and close descriptors. The children are real (`/bin/sh`, `/bin/echo`).
struct TestChildTests {
    /// What descriptor `descriptor` of this process is (`pipe:[…]`, `socket:[…]`, a path).
    func target(_ descriptor: Int32) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }

    @Test func aChildHasOnlyItsThreeStandardDescriptors() async throws {
        // Held open by the test, and not close-on-exec: what a careless test or library leaves around.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        let held = try [ends[0], ends[1], listener].map(target)
        // The shell has `ls` list the shell's own descriptors (`; true`: the shell waits, not execs).
        let listing = try await CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"))
            .run(["-c", "ls -l /proc/$$/fd; true"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let lines = listing.stdout.split(separator: "\n").filter { $0.contains(" -> ") }.map(String.init)
        let numbers = lines.compactMap { $0.components(separatedBy: " -> ")[0].split(separator: " ").last }
        #expect(Set(numbers.map(String.init)) == ["0", "1", "2"], "\(lines)")
        for name in held {
            #expect(!listing.stdout.contains(name), "the child holds \(name): \(lines)")
        }
    }

    @Test func aDescriptorPassedOnPurposeIsTheChildsStandardInput() async throws {
        let source = try TestChild.pipe()
        let sink = try TestChild.pipe()
        let child = try TestChild.spawn(
            URL(fileURLWithPath: "/bin/cat"), [], input: source.reader, output: sink.writer)
        close(source.reader)
        close(sink.writer)
        #expect(try PipeWriting.write(Data("through cat\n".utf8), to: source.writer))
        close(source.writer)
        let (status, output) = await Self.offPool {
            (child.waitForExit(), TestChild.readToEnd(sink.reader))
        }
        close(sink.reader)
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == "through cat\n")
    }

    @Test func aProgramThatCannotBeStartedIsAClearError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/paywall-tool")
        let error = #expect(throws: TestChild.SpawnFailed.self) {
            _ = try CommandRunner(executable: missing).runBlocking(["x"])
        }
        #expect(error?.code == ENOENT)
        #expect("\(error.map { "\($0)" } ?? "")".contains("cannot start /nonexistent/paywall-tool: No such file"))
    }

    @Test func twoHundredLaunchesFromEightTasksAllSucceedWhileDescriptorsComeAndGo() async throws {
        let stop = AsyncFlag()
        // Another thread opens and closes pipes and files all the while, as other tests do.
        let churn = Thread {
            while !stop.isRaised {
                var ends: [Int32] = [-1, -1]
                if pipe(&ends) == 0 {
                    close(ends[0])
                    close(ends[1])
                }
                let file = open("/dev/null", O_RDONLY)
                if file >= 0 { close(file) }
            }
        }
        churn.start()
        defer { stop.raise() }
        let echo = CommandRunner(executable: URL(fileURLWithPath: "/bin/echo"))
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failed: [String] = []
                    for launch in 0..<25 {
                        let word = "t\(task)-\(launch)"
                        let result = try await echo.run([word])
                        if result.status != 0 || result.stdout != word + "\n" {
                            failed.append("\(word): \(result.status) \(result.stdout) \(result.stderr)")
                        }
                    }
                    return failed
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
