import Foundation
import HalleyTestSupport
import Testing

/// `--help`, `--version`, and command-line mistakes (exit 2).
@Suite struct CLIUsageTests {
    let api = CLIRunner.api

    @Test func versionPrintsTheNameAndASemanticVersion() async throws {
        let result = try await CLIRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.wholeMatch(of: #/halley \d+\.\d+\.\d+\n/#) != nil, "\(result)")
        #expect(result.stderr.isEmpty)
    }

    @Test func helpDescribesEveryCommandAndTheExitCodes() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try await CLIRunner.run(arguments)
            #expect(result.status == 0, "\(result)")
            for fragment in [
                "halley get", "halley links", "halley expand", "--version", "EXIT STATUS",
                "invalidDocument", "limitExceeded",
            ] {
                #expect(result.stdout.contains(fragment), "\(fragment) missing from \(arguments)")
            }
        }
    }

    @Test func getHelpDocumentsEveryOptionAndTheTraceFormat() async throws {
        for arguments in [["get", "--help"], ["help", "get"], ["get", "\(api)/", "--bogus", "-h"]] {
            let result = try await CLIRunner.run(arguments)
            #expect(result.status == 0, "\(result)")
            for option in [
                "--include", "--var", "--header", "--max-concurrency", "--allow-partial", "--prefer-links",
                "--allow-origin", "--compact", "--trace", "--fixtures", "--help",
            ] {
                #expect(result.stdout.contains(option), "\(option) missing from \(arguments)")
            }
            #expect(
                result.stdout.contains(
                    "trace: METHOD URL status=STATUS bytes=N start=S.SSms duration=D.DDms include=PATH"))
            #expect(result.stdout.contains("waterfall: N requests"))
        }
    }

    @Test func linksAndExpandHaveTheirOwnHelp() async throws {
        let links = try await CLIRunner.run(["links", "--help"])
        #expect(links.status == 0)
        #expect(links.stdout.contains("REL  NAME  HREF  TEMPLATED  TITLE  DEPRECATION  SOURCE"))
        let expand = try await CLIRunner.run(["expand", "--help"])
        #expect(expand.status == 0)
        #expect(expand.stdout.contains("halley expand TEMPLATE"))
    }

    /// Every mistake: exit 2, nothing on stdout, one `halley: ` line pointing to the help.
    @Test(arguments: [
        ([], "missing command"),
        (["gett"], "did you mean 'get'"),
        (["frobnicate"], "unknown command"),
        (["--verbose"], "unknown option"),
        (["get"], "missing URL"),
        (["get", "a", "b"], "expected one"),
        (["get", "https://api.example.com/", "--includ", "x"], "did you mean --include"),
        (["get", "https://api.example.com/", "--var", "id"], "NAME=VALUE"),
        (["get", "https://api.example.com/", "--var", "=1"], "variable name"),
        (["get", "https://api.example.com/", "--header", "NoColon"], "Name: Value"),
        (["get", "https://api.example.com/", "--header", "Bad Name: x"], "header name"),
        (["get", "https://api.example.com/", "--header", "X-A: 1\r\nX-B: 2"], "control character"),
        (["get", "https://api.example.com/", "--max-concurrency", "0"], "positive integer"),
        (["get", "https://api.example.com/", "--max-concurrency", "-3"], "positive integer"),
        (["get", "https://api.example.com/", "--max-concurrency", "many"], "positive integer"),
        (["get", "https://api.example.com/", "--max-concurrency"], "needs a value"),
        (["get", "https://api.example.com/", "--allow-origin", "api.example.com"], "not an origin"),
        (["get", "https://api.example.com/", "--allow-origin", "https://cdn.example.com/path"], "not an origin"),
        (["get", "https://api.example.com/", "--compact=yes"], "takes no value"),
        (["get", "https://api.example.com/", "--fixtures", "/nonexistent/halley"], "not a directory"),
        (["get", "https://api.example.com/", "--fixtures", "a", "--fixtures", "b"], "more than once"),
        (["links", "https://api.example.com/", "--trace"], "unknown option"),
        (["expand"], "missing TEMPLATE"),
        (["expand", "{x}", "--header", "A: b"], "unknown option"),
        (["--version", "extra"], "no arguments"),
        (["get", "https://api.example.com/", "--timeout", "0"], "not a number of seconds above 0"),
        (["get", "https://api.example.com/", "--timeout", "-1"], "not a number of seconds"),
        (["links", "https://api.example.com/", "--timeout", "soon"], "not a number of seconds"),
        (["forms", "https://api.example.com/", "--timeout", "nan"], "not a number of seconds"),
        (["get", "https://api.example.com/", "--timeout", "1e3"], "not a number of seconds"),
        (["get", "https://api.example.com/", "--timeout", "86401"], "at most 86400"),
        (["get", "https://api.example.com/", "--timeout", "1", "--timeout", "2"], "more than once"),
        (["submit", "https://api.example.com/", "--deadline", "."], "not a number of seconds"),
        (["send", "POST", "https://api.example.com/", "--deadline", "inf"], "not a number of seconds"),
        (["get", "https://api.example.com/", "--retries", "-1"], "whole number from 0 to 100"),
        (["get", "https://api.example.com/", "--retries", "1.5"], "whole number"),
        (["get", "https://api.example.com/", "--retries", "101"], "whole number from 0 to 100"),
        (["expand", "{x}", "--timeout", "1"], "unknown option"),
        (["send"], "missing METHOD and URL"),
        (["send", "POST"], "missing URL"),
        (["send", "POST", "https://api.example.com/", "extra"], "expected one URL"),
        (["send", "GET POST", "https://api.example.com/"], "not an HTTP method"),
        (["send", "POST", "https://api.example.com/", "--rel", ""], "not a link relation"),
        (["send", "POST", "https://api.example.com/", "--include", "x"], "unknown option"),
    ])
    func usageErrorsExitTwo(arguments: [String], fragment: String) async throws {
        let result = try await CLIRunner.run(arguments)
        CLIExpect.failure(result, status: 2, containing: [fragment, "--help"])
        #expect(result.stderrLines.count == 1, "\(result)")
    }

    @Test func aFileGivenAsTheCommandGetsAHintOnReadingIt() async throws {
        let file = CLIRunner.fixtures + "/contacts/1.json"
        let result = try await CLIRunner.run([file])
        CLIExpect.failure(
            result, status: 2,
            containing: [
                "halley get --fixtures \(CLIRunner.fixtures)/contacts https://local/1.json"
            ])
        // ... and the hint works.
        let hinted = try await CLIRunner.run([
            "get", "--fixtures", CLIRunner.fixtures + "/contacts", "https://local/1.json",
        ])
        #expect(try hinted.json()["name"]?.stringValue == "Ada Lovelace", "\(hinted)")
    }

    @Test func doubleDashEndsOptions() async throws {
        let result = try await CLIRunner.run(["expand", "--var", "x=1", "--", "-{x}"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "-1\n")
    }

    @Test func optionsMayUseEqualsAndComeBeforeTheOperand() async throws {
        let result = try await CLIRunner.run([
            "get", "--fixtures=\(CLIRunner.fixtures)", "--include=website", "--compact", "\(api)/contacts/1",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["website"]?["id"]?.intValue == 1)
    }
}
