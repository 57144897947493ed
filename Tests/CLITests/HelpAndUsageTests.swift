import Foundation
import PaywallTestSupport
import Testing

/// Every subcommand path the tool has, found by walking the SUBCOMMANDS sections of `--help`,
/// so a new subcommand is covered without editing this file.
let commandPaths: [[String]] = {
    guard let cli = try? CommandRunner() else { return [[]] }
    var found: [[String]] = []
    var pending: [[String]] = [[]]
    while let path = pending.popLast() {
        found.append(path)
        guard let help = try? cli.runBlocking(path + ["--help"]).stdout,
            let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first
        else { continue }
        for line in section.components(separatedBy: "\n") {
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first else {
                if line.isEmpty { break } else { continue }
            }
            pending.append(path + [String(word)])
        }
    }
    return found
}()

struct HelpAndUsageTests {
    let cli = try! CommandRunner()

    @Test(arguments: commandPaths)
    func everySubcommandAnswersHelpWithExamples(path: [String]) async throws {
        for flag in ["--help", "-h"] {
            let result = try await cli.run(path + [flag])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("OVERVIEW: "))
            #expect(result.stdout.contains("USAGE: paywall-analytics"))
            #expect(result.stdout.contains("OPTIONS:"))
            #expect(result.stdout.contains("EXAMPLES:\n  paywall-analytics"))
            #expect(result.stderr.isEmpty)
        }
        let viaHelp = try await cli.run(["help"] + path)
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout == (try await cli.run(path + ["--help"])).stdout)
    }

    @Test func theWalkFindsTheNestedSubcommands() {
        #expect(commandPaths.contains(["catalog", "check"]))
        #expect(commandPaths.count >= 5)
    }

    @Test func versionPrintsTheVersion() async throws {
        let result = try await cli.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    }

    @Test(
        arguments: [
            (["frobnicate"], "unknown subcommand 'frobnicate'"),
            (["catalog", "check", "--bogus"], "unknown option '--bogus'"),
            (["catalog", "check", "a.json", "b.json"], "at most one file"),
            (["catalog", "docs", "--output"], "needs a value"),
            (["catalog", "check", "--quiet=yes"], "takes no value"),
            (["help", "nothing"], "no such subcommand"),
        ] as [([String], String)])
    func usageErrorsExit64WithErrorAndUsageOnStderr(arguments: [String], message: String) async throws {
        let result = try await cli.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("Usage: paywall-analytics"))
        #expect(result.stdout.isEmpty)
    }
}
