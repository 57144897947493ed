import Foundation
import PaywallTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hardening item 2: `--out FILE` never replaces what is there by something else. A character device
/// or a FIFO is written straight to (a full device fails with 74 and stays a device); a symbolic link
/// is written through to its target and stays a link (also a link to `/proc/self/fd/1`); an existing
/// file keeps its mode; one of the process's own descriptors (`/dev/stdout`, `/dev/fd/N`) is written as
/// the shell opened it (appended to, never replaced); a folder, a block device or a link to nothing is
/// refused with 73, untouched.
/// Decision: write through links (as the shell's `>` does) rather than refuse them.
struct OutFileTests {
    let cli = try! CommandRunner()
    let bash = CommandRunner(executable: URL(fileURLWithPath: "/bin/bash"))

    func database(_ scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("events.sqlite")
        let input = try scratch.write("in.ndjson", (1...25).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        return db
    }

    /// The bytes `export events` writes to a plain new file.
    func reference(_ scratch: TemporaryDirectory, _ db: String) async throws -> Data {
        let path = scratch.path("reference.csv")
        #expect(try await cli.run(["export", "events", "--out", path, "--db", db]).status == 0)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// glibc's `makedev` (a macro Swift cannot call) for majors and minors below 256.
    func device(_ major: UInt64, _ minor: UInt64) -> dev_t { dev_t((major << 8) | minor) }

    func type(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test(.enabled(if: geteuid() == 0, "mknod of a character device needs root"))
    func aFullCharacterDeviceFailsWith74AndStaysADevice() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let node = scratch.path("myfull")
        try #require(
            mknod(node, S_IFCHR | 0o666, device(1, 7)) == 0, "mknod needs root: \(String(cString: strerror(errno)))")
        let result = try await cli.run(["export", "events", "--out", node, "--db", db])
        #expect(result.status == 74, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        #expect(type(node) == S_IFCHR, "the node is still a character device")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains("partial") }
                .isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "mknod of a character device needs root"))
    func aNullDeviceTakesTheExportAndStaysADevice() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let node = scratch.path("mynull")
        try #require(mknod(node, S_IFCHR | 0o666, device(1, 3)) == 0, "mknod needs root")
        let result = try await cli.run(["export", "events", "--out", node, "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "exported 25 rows to \(node)\n")
        #expect(type(node) == S_IFCHR)
    }

    @Test func aFIFOWithAReaderGetsTheWholeExport() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let expected = try await reference(scratch, db)
        let fifo = scratch.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let got = scratch.path("got.csv")
        let script =
            #"cat "$1" > "$2" & timeout 60 "$PA" export events --out "$1" --db "$3"; status=$?; wait; exit $status"#
        let result = try await bash.run(
            ["-c", script, "bash", fifo, got, db], environment: ["PA": cli.executable.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: got)) == expected)
        #expect(type(fifo) == S_IFIFO, "the FIFO is still a FIFO")
    }

    @Test func aLinkToAFileIsWrittenThroughAndStaysALinkAndTheFileKeepsItsMode() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let expected = try await reference(scratch, db)
        try FileManager.default.createDirectory(atPath: scratch.path("elsewhere"), withIntermediateDirectories: true)
        let target = try scratch.write("elsewhere/target.csv", "old")
        #expect(chmod(target, 0o600) == 0)
        let link = scratch.path("out.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "elsewhere/target.csv")
        let result = try await cli.run(["export", "events", "--out", link, "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(type(link) == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "elsewhere/target.csv")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == expected)
        #expect(mode(target) == 0o600)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path("elsewhere"))
        #expect(left == ["target.csv"], "no staging file left: \(left)")
    }

    @Test func aLinkToStandardOutputWritesToStandardOutput() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let expected = try await reference(scratch, db)
        let link = scratch.path("out")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        let result = try await cli.run(["export", "events", "--out", link, "--db", db, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Data(result.stdout.utf8) == expected)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "/proc/self/fd/1")
        let viaDev = try await cli.run(["export", "events", "--out", "/dev/stdout", "--db", db, "--quiet"])
        #expect(viaDev.status == 0 && Data(viaDev.stdout.utf8) == expected, "\(viaDev.stderr)")
    }

    @Test func standardOutputOpenedForAppendingIsAppendedToNotReplaced() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let expected = try await reference(scratch, db)
        let link = scratch.path("out")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        for (index, target) in ["/dev/stdout", link, "/dev/fd/3"].enumerated() {
            let log = try scratch.write("log\(index).txt", "before\n")
            let script = #"exec "$PA" export events --out "$1" --db "$2" --quiet >> "$3" 3>> "$3""#
            let result = try await bash.run(
                ["-c", script, "bash", target, db, log], environment: ["PA": cli.executable.path])
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == Data("before\n".utf8) + expected, "\(target)")
            #expect(type(log) == S_IFREG)
        }
    }

    @Test(arguments: [0o600, 0o640, 0o664, 0o604])
    func anExistingFileKeepsItsMode(_ bits: Int) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let path = try scratch.write("existing.csv", "old")
        #expect(chmod(path, mode_t(bits)) == 0)
        let result = try await bash.run(
            ["-c", #"umask 077 && exec "$PA" export events --out "$1" --db "$2""#, "bash", path, db],
            environment: ["PA": cli.executable.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(mode(path) == mode_t(bits), "mode \(String(mode(path), radix: 8)) instead of \(String(bits, radix: 8))")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("id,"))
    }

    @Test func foldersBlockDevicesAndLinksToNothingAreRefusedWith73() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let folder = scratch.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dangling = scratch.path("dangling")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: scratch.path("nowhere/x.csv"))
        var targets = [folder, dangling]
        let block = scratch.path("myblock")
        if mknod(block, S_IFBLK | 0o600, device(7, 0)) == 0 { targets.append(block) }
        for target in targets {
            let kind = type(target)
            let result = try await cli.run(["export", "events", "--out", target, "--db", db])
            #expect(result.status == 73, "\(target): \(result.stderr)")
            #expect(result.stderr.contains(target), "\(result.stderr)")
            #expect(type(target) == kind, "\(target) kept its kind")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == scratch.path("nowhere/x.csv"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nowhere")))
    }

    @Test func stagingFilesOfKilledExportsAreRemovedByTheNextOne() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await database(scratch)
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/bin/true")
        try victim.run()
        victim.waitUntilExit()
        let dead = victim.processIdentifier
        try scratch.write(".e.csv.partial-\(dead)-0", "half")
        try scratch.write("e.csv.partial-\(dead)", "half, older naming")
        try scratch.write(".e.csv.partial-1-0", "pid 1 runs: kept")
        let result = try await cli.run(["export", "events", "--out", scratch.path("e.csv"), "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.contains("partial")
        }
        #expect(left == [".e.csv.partial-1-0"], "\(left)")
    }

    @Test func catalogOutputsFollowTheSameRules() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let target = try scratch.write("docs.md", "old")
        #expect(chmod(target, 0o600) == 0)
        let link = scratch.path("link.md")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let root = Golden.packageRoot(from: #filePath)
        let result = try await cli.run(["catalog", "docs", "--output", link], directory: root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(type(link) == S_IFLNK)
        #expect(mode(target) == 0o600)
        #expect(try String(contentsOfFile: target, encoding: .utf8).count > 100)
    }
}
