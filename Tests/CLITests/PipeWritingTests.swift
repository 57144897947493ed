import Foundation
import PaywallTestSupport
import Testing

/// Writing to a child's standard input after the child exited reports the closed reader; the test
/// process does not die of SIGPIPE (which would end the whole suite with no report).
struct PipeWritingTests {
    @Test func aWriteToAPipeWhoseReaderIsClosedReturnsFalse() throws {
        // Given a pipe whose only reading end is closed
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        // When 1 MiB is written to it, twice, Then each write says the reader is gone, and this process lives on
        #expect(try PipeWriting.write(Data(count: 1 << 20), to: ends[1]) == false)
        #expect(try PipeWriting.write(Data("again\n".utf8), to: ends[1]) == false)
        // And SIGPIPE is not left pending or blocked for this thread
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0)
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0)
    }

    @Test func aWriteToAnExitedChildsStandardInputDoesNotKillTheTests() async throws {
        // Given a child that exited without reading its standard input
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        let input = Pipe()
        child.standardInput = input
        try child.run()
        child.waitUntilExit()
        try? input.fileHandleForReading.close()  // this process's copy of the reading end, if Foundation kept it
        // When 1 MiB is written to it, Then the write reports the closed reader
        #expect(try PipeWriting.write(Data(count: 1 << 20), to: input.fileHandleForWriting) == false)
        // And a write that a reader takes still succeeds
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        let second = Pipe()
        reader.standardInput = second
        reader.standardOutput = FileHandle.nullDevice
        try reader.run()
        #expect(try PipeWriting.write(Data(count: 1 << 20), to: second.fileHandleForWriting))
        try second.fileHandleForWriting.close()
        reader.waitUntilExit()
        #expect(reader.terminationStatus == 0)
    }
}
