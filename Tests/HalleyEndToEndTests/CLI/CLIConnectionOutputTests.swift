import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `-i`/`--show-headers` and `-v`/`--verbose` (issue #28): each response's head, and each
/// request's connection, protocols and timings, on stderr, against nginx over HTTPS and HTTP/2.
@Suite struct CLIConnectionOutputTests {
    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLIRunner.run(arguments, environment: CLITLSTests.environment())
    }

    @Test func verboseTracesTheConnectionOfEachRequest() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let root = nginx.https("/root").absoluteString
        let result = try await run(["get", root, "--include", "[item]", "-v", "--cacert", certificates.path("ca.pem")])
        #expect(result.status == 0, "\(result)")
        let traces = result.stderrLines.filter { $0.hasPrefix("trace: GET ") }
        let connections = result.stderrLines.filter { $0.hasPrefix("trace:   ") }
        #expect(traces.count == 3 && connections.count == 3, "\(result)")
        // The root's line, then its connection: a new HTTP/2 connection over TLS 1.2 or 1.3
        // (nginx's default protocols depend on its version).
        let rootLine = try #require(result.stderrLines.firstIndex { $0.hasPrefix("trace: GET \(root) ") })
        let rootConnection = result.stderrLines[rootLine + 1]
        let version = try #require(
            ["TLSv1.2", "TLSv1.3"].first { rootConnection.contains(" tls=\($0) ") }, "\(rootConnection)")
        #expect(
            rootConnection.hasPrefix(
                "trace:   via=127.0.0.1:\(nginx.tlsPort) connection=new protocol=HTTP/2 tls=\(version) dns="),
            "\(rootConnection)")
        for field in ["connect=", "tls-handshake=", "first-byte=", "total="] {
            #expect(rootConnection.contains(field), "\(field) in \(rootConnection)")
        }
        // The items ride the same connection, and still know its TLS version.
        #expect(
            connections.filter { $0.contains("connection=reused protocol=HTTP/2 tls=\(version) ") }.count == 2,
            "\(connections)")
        // -v implies the waterfall of --trace.
        #expect(result.stderrLines.contains { $0.hasPrefix("waterfall: 3 requests in ") }, "\(result)")
    }

    @Test func verboseNamesHTTP1AndPlainConnections() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let http1 = try await run([
            "links", nginx.https("/root").absoluteString, "--verbose", "--http1.1", "--cacert",
            certificates.path("ca.pem"),
        ])
        #expect(http1.status == 0, "\(http1)")
        #expect(http1.stderrLines.contains { $0.contains(" protocol=HTTP/1.1 tls=TLSv1.") }, "\(http1)")

        let plain = try await run(["links", nginx.http("/root").absoluteString, "-v"])
        #expect(plain.status == 0, "\(plain)")
        #expect(
            plain.stderrLines.contains {
                $0.hasPrefix("trace:   via=127.0.0.1:\(nginx.plainPort) connection=new protocol=HTTP/1.1 tls=none ")
            }, "\(plain)")
    }

    @Test func showHeadersPrintsEachResponsesHead() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let root = nginx.https("/root").absoluteString
        let result = try await run(["get", root, "-i", "--cacert", certificates.path("ca.pem")])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderrLines.first == "< HTTP/2 200 OK (GET \(root))", "\(result)")
        #expect(result.stderrLines.contains("< content-type: application/hal+json"), "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("< server: nginx") }, "\(result)")
        #expect(try result.json()["_links"] != nil, "stdout keeps the document alone")

        // A failed status still shows its head, before the error.
        let missing = nginx.https("/nowhere").absoluteString
        let failed = try await run(["get", missing, "-i", "-v", "--cacert", certificates.path("ca.pem")])
        #expect(failed.status == 1)
        #expect(failed.stderrLines.contains("< HTTP/2 404 Not Found (GET \(missing))"), "\(failed)")
        #expect(failed.stderrLines.last == "halley: HTTP 404 Not Found (URL \(missing))", "\(failed)")
    }

    @Test func theOptionsAreInEveryCommandsHelp() async throws {
        for command in ["get", "links", "forms", "submit", "send"] {
            let help = try await run([command, "--help"])
            #expect(help.stdout.contains("-i, --show-headers"), "\(command)")
            #expect(help.stdout.contains("-v, --verbose"), "\(command)")
        }
    }
}
