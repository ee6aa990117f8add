import Foundation
import Halley
import HalleyTestSupport
import Testing

/// The tool's TLS, proxy and HTTP version options against nginx, tinyproxy and the hostile
/// TLS servers (`HalleyTestSupport/TLSServers.swift`): the flags curl users reach for work the same here.
@Suite struct CLITLSTests {
    /// The test process's environment without proxy variables, plus `extra`: what each run
    /// gets, so a proxy set on the machine cannot change the outcome.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        let proxyVariables: Set<String> = [
            "http_proxy", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
        ]
        return ProcessInfo.processInfo.environment.filter { !proxyVariables.contains($0.key) }
            .merging(extra) { $1 }
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CLIResult {
        try await CLIRunner.run(arguments, environment: Self.environment(extra))
    }

    static func marker() -> String { "cli\(UUID().uuidString.prefix(8))" }

    @Test func cacertTrustsAPrivateCA() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let root = nginx.https("/root").absoluteString

        let untrusted = try await run(["get", root])
        CLIExpect.failure(
            untrusted, status: 1,
            containing: [
                "the certificate of localhost is not trusted (unable to get local issuer certificate); give its CA with --cacert (URL"
            ])

        let trusted = try await run(["get", root, "--include", "[item]", "--cacert", certificates.path("ca.pem")])
        #expect(trusted.status == 0, "\(trusted)")
        #expect(try trusted.json()["item"]?[1]?["id"] == 2)
    }

    /// Regression: the tool exited while libcurl's thread was still closing its TLS
    /// connections, and OpenSSL's exit handler freed the locks that thread was using (a
    /// SIGSEGV in `SSL_CTX_free`, seen under ThreadSanitizer). Every run ends cleanly now.
    @Test func theToolEndsCleanlyRightAfterItsLastTLSTransfer() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let arguments = [
            "get", nginx.https("/root").absoluteString, "--include", "[item]", "--cacert", certificates.path("ca.pem"),
        ]
        for _ in 0..<12 {
            let results = try await withThrowingTaskGroup(of: CLIResult.self) { group in
                for _ in 0..<4 { group.addTask { try await run(arguments) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results {
                #expect(result.status == 0 && !result.crashed, "\(result)")
                #expect(!result.stderr.contains("Sanitizer"), "\(result)")
            }
        }
    }

    @Test func certAndKeyAnswerAMutualTLSServer() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let url = nginx.mutualTLS("/items/1").absoluteString
        let ca = ["--cacert", certificates.path("ca.pem")]

        let with = try await run(
            ["get", url, "--cert", certificates.path("client.pem"), "--key", certificates.path("client.key")] + ca)
        #expect(with.status == 0, "\(with)")
        #expect(try with.json()["id"] == 1)

        let encrypted = try await run(
            [
                "links", url, "--cert", certificates.path("client.pem"), "--key",
                certificates.path("client-encrypted.key"), "--pass", TLSLab.passphrase,
            ] + ca)
        #expect(encrypted.status == 0, "\(encrypted)")
        #expect(encrypted.stdout.contains("self"))

        let without = try await run(["get", url] + ca)
        CLIExpect.failure(without, status: 1, containing: ["HTTP 400"])
    }

    @Test func aKeyFileThatIsNotAKeyIsAUsageErrorNamingIt() async throws {
        let certificates = try await TLSLab.certificates()
        let client = certificates.path("client.pem")
        let cases: [([String], String)] = [
            (["--cert", client, "--key", client], "the client key \(client) holds no PEM private key"),
            (["--cert", client, "--key", "/nonexistent/client.key"], "/nonexistent/client.key cannot be read"),
            (
                ["--cert", client, "--key", certificates.path("client-encrypted.key")],
                "client-encrypted.key is encrypted; give its passphrase"
            ),
            (["--cacert", certificates.path("server.key")], "holds no PEM certificate"),
            (["--key", certificates.path("client.key")], "--key needs --cert"),
            (["--pinned-pubkey", "sha256//short"], "--pinned-pubkey \"sha256//short\" is not sha256//"),
            (["--http1.1", "--http2"], "--http1.1 and --http2 exclude each other"),
            (["--proxy", "ftp://user:hunter2@proxy"], "is not a proxy URL"),
        ]
        for (options, fragment) in cases {
            for command in [["get"], ["send", "DELETE"]] {
                let result = try await run(command + ["https://localhost:1/"] + options)
                CLIExpect.failure(result, status: 2, containing: [fragment])
                #expect(!result.stderr.contains("hunter2"))
            }
        }
        let fixtures = try await run([
            "get", "--fixtures", CLIRunner.fixtures, "\(CLIRunner.api)/", "--cacert", certificates.path("ca.pem"),
        ])
        CLIExpect.failure(fixtures, status: 2, containing: ["--cacert has no effect with --fixtures"])
    }

    @Test func pinnedPubkeyAcceptsOnlyTheServersKey() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let url = nginx.https("/items/2").absoluteString
        let ca = ["--cacert", certificates.path("ca.pem")]
        let serverPin = try certificates.pin(of: "server.pem")
        let otherPin = try certificates.pin(of: "other-ca.pem")

        let matching = try await run(["get", url, "--pinned-pubkey", "\(otherPin);\(serverPin)"] + ca)
        #expect(matching.status == 0, "\(matching)")
        let mismatching = try await run(["get", url, "--pinned-pubkey", otherPin] + ca)
        CLIExpect.failure(
            mismatching, status: 1, containing: ["the public key of localhost is not one of the pinned keys"])
    }

    @Test func insecureWarnsOnEveryUseAndStillChecksTheName() async throws {
        let hostile = try await TLSLab.hostile()
        let warning = "halley: warning: --insecure: any server certificate is accepted (its host name is still checked)"
        for flag in ["--insecure", "-k"] {
            let result = try await run(["get", try hostile.url("self-signed").absoluteString, flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderrLines.filter { $0.hasPrefix(warning) }.count == 1, "\(result)")
        }
        let misnamed = try await run(["get", try hostile.url("wrong-name", host: "127.0.0.1").absoluteString, "-k"])
        CLIExpect.failure(misnamed, status: 1, containing: ["the certificate of 127.0.0.1 is for another host name"])
        #expect(misnamed.stderrLines.first?.hasPrefix(warning) == true)
    }

    @Test func proxyOptionsAndVariablesSayWhenTheProxyFails() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let url = nginx.https("/items/1").absoluteString
        let ca = ["--cacert", certificates.path("ca.pem")]
        let expected = "could not connect to the proxy 127.0.0.1:1 for \(url)"
        for (options, environment) in [
            (["--proxy", "http://127.0.0.1:1"], [String: String]()),
            (["-x", "127.0.0.1:1"], [:]),
            ([], ["https_proxy": "http://127.0.0.1:1"]),
            ([], ["HTTPS_PROXY": "127.0.0.1:1"]),
            ([], ["ALL_PROXY": "http://127.0.0.1:1"]),
        ] {
            let result = try await run(["get", url] + options + ca, environment: environment)
            CLIExpect.failure(result, status: 1, containing: [expected])
        }
        // NO_PROXY, or --noproxy, sends it direct.
        for (options, environment) in [
            ([], ["https_proxy": "http://127.0.0.1:1", "NO_PROXY": "localhost"]),
            (["--noproxy", "localhost"], ["https_proxy": "http://127.0.0.1:1"]),
            (["--proxy", "http://127.0.0.1:1", "--noproxy", "example.com,localhost"], [:]),
            (["--proxy", "http://127.0.0.1:1"], ["no_proxy": "localhost"]),
        ] {
            let result = try await run(["get", url] + options + ca, environment: environment)
            #expect(result.status == 0, "\(options) \(environment): \(result)")
        }
    }

    @Test func proxyCarriesHTTPSInATunnelAndRefusesHeadersInClear() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let certificates = try await TLSLab.certificates()
        let marker = Self.marker()
        let proxy = tinyproxy.url().absoluteString

        let tunnelled = try await run([
            "get", nginx.https("/items/1?\(marker)").absoluteString, "-x", proxy, "-H",
            "Authorization: Bearer \(marker)",
            "--cacert", certificates.path("ca.pem"),
        ])
        #expect(tunnelled.status == 0, "\(tunnelled)")
        #expect(!(try await tinyproxy.requestLines(containing: "CONNECT localhost:\(nginx.tlsPort)")).isEmpty)
        let origin = try #require(try await nginx.logLines(containing: marker).first)
        #expect(origin.contains("auth=[Bearer \(marker)]"), "-H reached the origin: \(origin)")

        let plain = nginx.http("/items/1?\(marker)-plain").absoluteString
        let refused = try await run(["get", plain, "-x", proxy, "-H", "X-Api-Key: \(marker)"])
        CLIExpect.failure(refused, status: 1, containing: ["refusing to send X-Api-Key in clear through the proxy"])
        #expect(try await tinyproxy.requestLines(containing: "\(marker)-plain", count: 0).isEmpty)

        let headerless = try await run(["get", plain, "-x", proxy])
        #expect(headerless.status == 0, "\(headerless)")
        #expect(try await tinyproxy.requestLines(containing: "\(marker)-plain").count == 1)
    }

    @Test func httpVersionFlags() async throws {
        let nginx = try await TLSLab.nginx()
        let certificates = try await TLSLab.certificates()
        let marker = Self.marker()
        for (flag, protocolName) in [("--http1.1", "HTTP/1.1"), ("--http2", "HTTP/2.0")] {
            let url = nginx.https("/items/2?\(marker)\(flag)").absoluteString
            let result = try await run(["get", url, flag, "--cacert", certificates.path("ca.pem")])
            #expect(result.status == 0, "\(result)")
            let line = try #require(try await nginx.logLines(containing: "\(marker)\(flag)").first)
            #expect(line.hasSuffix("proto=\(protocolName)"), "\(line)")
        }
    }

    @Test func everyNetworkCommandDocumentsTheTransportOptions() async throws {
        for command in ["get", "links", "forms", "submit", "send"] {
            let help = try await run([command, "--help"])
            #expect(help.status == 0)
            for option in [
                "-H, --header", "--cacert FILE", "--cert FILE", "--key FILE", "--pass PHRASE", "--pinned-pubkey",
                "-k, --insecure", "-x, --proxy URL", "--noproxy HOSTS", "--http1.1", "--http2", "NO_PROXY",
            ] {
                #expect(help.stdout.contains(option), "\(option) missing from halley \(command) --help")
            }
        }
    }
}
