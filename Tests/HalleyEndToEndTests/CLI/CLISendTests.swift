import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `halley send` over real HTTP, against the loopback test server's `/echo` (any method, the
/// request echoed back) and `/link-to` (a document whose `other` link is a given URL).
@Suite struct CLISendTests {
    /// A fresh path segment per test, so tests sharing the server find their own requests.
    let marker = "send-" + UUID().uuidString

    /// The echoed request in stdout.
    func echo(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        return try result.json(sourceLocation: sourceLocation)
    }

    @Test func postsInlineJSONAsGivenAndPrintsTheResponse() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/echo/\(marker)")
        let data = #"{"item": "book",  "quantity": 2, "price": 12.50}"#
        let result = try await CLIRunner.run(["send", "POST", url.absoluteString, "--data", data])
        let echoed = try echo(result)
        #expect(echoed["method"]?.stringValue == "POST")
        // Sent byte for byte, not re-serialized: the spacing and "12.50" survive.
        #expect(echoed["body"]?.stringValue == data)
        #expect(echoed["contentType"]?.stringValue == "application/json")
        #expect(CLIExpect.keysAreSorted(try result.json()))
        #expect(
            result.stderrLines == [
                "halley: note: POST \(url.absoluteString) answered 201, Location \(server.baseURL.absoluteString)/echo/created"
            ], "\(result)")
    }

    @Test func readsTheBodyFromAFileWithAnAtSign() async throws {
        let server = try await TestServer.shared()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(marker).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let data = "{\n  \"note\": \"Grüße — \\u00e9\",\n  \"tags\": [\"a\", \"b\"]\n}\n"
        try Data(data.utf8).write(to: file)
        let result = try await CLIRunner.run([
            "send", "put", server.url("/echo/\(marker)").absoluteString, "--data", "@" + file.path,
        ])
        let echoed = try echo(result)
        #expect(echoed["method"]?.stringValue == "PUT", "a common method in lowercase is uppercased")
        #expect(echoed["body"]?.stringValue == data)
    }

    @Test func withoutDataNothingIsSent() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run(["send", "DELETE", server.url("/echo/\(marker)").absoluteString])
        let echoed = try echo(result)
        #expect(echoed["method"]?.stringValue == "DELETE")
        #expect(echoed["body"]?.stringValue == "")
        #expect(echoed["contentType"] == .null)
    }

    @Test func aContentTypeHeaderDescribesTheData() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run([
            "send", "PATCH", server.url("/echo/\(marker)").absoluteString, "--data", #"{"status": "paid"}"#,
            "--header", "Content-Type: application/merge-patch+json",
        ])
        #expect(try echo(result)["contentType"]?.stringValue == "application/merge-patch+json")
    }

    @Test func relSendsToTheTargetOfTheResourcesLink() async throws {
        let server = try await TestServer.shared()
        let target = server.url("/echo/\(marker)")
        let resource = server.linkTo(target)
        let result = try await CLIRunner.run([
            "send", "POST", resource.absoluteString, "--rel", "other", "--data", #"{"note": "hi"}"#,
        ])
        let echoed = try echo(result)
        #expect(echoed["target"]?.stringValue == "/echo/\(marker)")
        #expect(echoed["body"]?.stringValue == #"{"note": "hi"}"#)
        #expect(result.stderrLines.last?.hasPrefix("halley: note: POST \(target.absoluteString) answered 201") == true)
        // The resource first (GET), then the action on its link.
        let seen = try await server.requests(containing: marker).map { "\($0.method) \($0.path.prefix(8))" }
        #expect(seen == ["GET /link-to", "POST /echo/se"], "\(seen)")
    }

    @Test func relKeepsTheHeadersOnTheResourcesOrigin() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let secret = "k-" + UUID().uuidString
        let resource = server.linkTo(other.url("/echo/\(marker)"))
        let result = try await CLIRunner.run([
            "send", "POST", resource.absoluteString, "--rel", "other", "--header", "X-Api-Key: \(secret)",
        ])
        let headers = try #require(try echo(result)["headers"]?.objectValue)
        #expect(headers["x-api-key"] == nil, "\(result)")
        let fetched = try await server.requests(containing: marker)
        #expect(fetched.first?.headers["x-api-key"] == secret, "the resource's own origin gets them")

        let allowed = try await CLIRunner.run([
            "send", "POST", resource.absoluteString, "--rel", "other", "--header", "X-Api-Key: \(secret)",
            "--allow-origin", other.baseURL.absoluteString,
        ])
        #expect(try echo(allowed)["headers"]?["x-api-key"]?.stringValue == secret)
    }

    @Test func aMissingRelExitsThreeAndSendsNothing() async throws {
        let server = try await TestServer.shared()
        let resource = server.linkTo(server.url("/echo/\(marker)"))
        let result = try await CLIRunner.run(["send", "POST", resource.absoluteString, "--rel", "ea:cancel"])
        CLIExpect.failure(result, status: 3, containing: ["ea:cancel", "other, self"])
        let sent = try await server.requests(containing: marker).filter { $0.method != "GET" }
        #expect(sent.isEmpty)
    }

    @Test func aNon2xxAnswerExitsOneWithTheProblem() async throws {
        let server = try await TestServer.shared()
        // Only /echo takes methods other than GET and HEAD; elsewhere the server answers 405
        // with problem details.
        let result = try await CLIRunner.run(["send", "POST", server.url("/status/\(200)").absoluteString])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 405 Method Not Allowed: only /echo takes POST"])
    }

    @Test func retriesAreNotUsedForAPostAndANoteSaysSo() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run([
            "send", "POST", server.url("/echo/\(marker)").absoluteString, "--retries", "2",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderrLines.first == "halley: note: --retries does not apply to POST, which is not idempotent",
            "\(result)")
    }

    /// `--data` mistakes are usage errors (exit 2) that say where the JSON fails, before
    /// anything is sent.
    @Test(arguments: [
        (#"{"a": [1, }"#, ["--data is not JSON", "at $.a[1] (byte 10)"]),
        ("", ["--data is not JSON", "byte 0"]),
        (#"{"a": 1} x"#, ["--data is not JSON", "byte 9"]),
        ("@/nonexistent/halley-data.json", ["--data @/nonexistent/halley-data.json: no such file"]),
        ("@", ["--data @: no such file"]),
    ])
    func badDataIsAUsageErrorThatSaysWhere(data: String, fragments: [String]) async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run([
            "send", "POST", server.url("/echo/\(marker)").absoluteString, "--data", data,
        ])
        CLIExpect.failure(result, status: 2, containing: fragments + ["halley send --help"])
        #expect(try await server.requests(containing: marker).isEmpty, "nothing was sent")
    }

    @Test func dataFromADirectoryOrAFileThatIsNotJSONIsAUsageError() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(marker)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("order.json")
        try Data("{\n  \"item\": book\n}".utf8).write(to: file)

        let folder = try await CLIRunner.run(["send", "POST", "http://127.0.0.1:1/", "--data", "@" + directory.path])
        CLIExpect.failure(folder, status: 2, containing: ["is a directory"])
        let broken = try await CLIRunner.run(["send", "POST", "http://127.0.0.1:1/", "--data", "@" + file.path])
        CLIExpect.failure(broken, status: 2, containing: ["--data @\(file.path) is not JSON", "at $.item (byte 12)"])
    }

    @Test func helpDescribesSend() async throws {
        let result = try await CLIRunner.run(["send", "--help"])
        #expect(result.status == 0)
        for fragment in [
            "halley send METHOD <url>", "--rel", "--data", "@FILE", "--timeout", "--deadline", "--retries",
        ] {
            #expect(result.stdout.contains(fragment), "\(fragment) missing")
        }
        let overview = try await CLIRunner.run(["--help"])
        #expect(overview.stdout.contains("halley send METHOD"))
        #expect(overview.stdout.contains("4  out of time"))
    }
}
