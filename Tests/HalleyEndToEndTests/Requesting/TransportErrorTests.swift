import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One transport error vocabulary (issue #28): the same failure gives the same
/// ``TransportError/Code`` from every requester, and reads as one sentence naming the host.
@Suite struct TransportErrorTests {
    /// A requester of this kind that ignores the environment's proxy where it can.
    func requester(_ transport: Transport) throws -> any RequesterInterface {
        switch transport {
        case .curl: return try CurlRequester(proxy: .direct)
        // FoundationNetworking follows the environment's proxy variables whatever it is told.
        case .urlsession: return URLSessionRequester()
        }
    }

    /// What `url` fails with, through `transport`, as a transport error.
    func transportError(
        _ transport: Transport, _ url: URL, timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TransportError {
        let failed = try await failure(
            of: ResourceRequest(url: url, timeout: timeout), with: try requester(transport),
            sourceLocation: sourceLocation)
        return try #require(
            failed.error as? TransportError, "\(transport): \(type(of: failed.error)) \(failed.error)",
            sourceLocation: sourceLocation)
    }

    /// The same code from both requesters; the Curl requester's error is returned.
    func sameCode(
        _ url: URL, _ code: TransportError.Code, timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TransportError {
        let curl = try await transportError(.curl, url, timeout: timeout, sourceLocation: sourceLocation)
        let session = try await transportError(.urlsession, url, timeout: timeout, sourceLocation: sourceLocation)
        #expect(curl.code == code, "curl: \(curl)", sourceLocation: sourceLocation)
        #expect(session.code == code, "URLSession: \(session)", sourceLocation: sourceLocation)
        #expect(curl.host == url.host && session.host == url.host, sourceLocation: sourceLocation)
        #expect(curl.url == url && session.url == url, sourceLocation: sourceLocation)
        #expect(curl.underlying != nil && session.underlying != nil, "the original error is kept")
        return curl
    }

    @Test func anUnknownHostReadsAlikeFromEveryRequester() async throws {
        let url = try #require(URL(string: "http://nosuch.invalid/contacts"))
        let error = try await sameCode(url, .hostNotFound)
        #expect(
            error.description
                == "the host name nosuch.invalid could not be resolved; check the URL's host name and the network's DNS"
        )
        #expect(error.localizedDescription == "The server nosuch.invalid could not be found.")
        #expect((error.underlying as? URLError)?.code == .cannotFindHost)
    }

    @Test func aClosedPortReadsAlikeFromEveryRequester() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/"))
        let error = try await sameCode(url, .connectionRefused)
        #expect(
            error.description
                == "127.0.0.1:1 refused the connection; check that the server is running and listens on that port")
    }

    @Test func aResetConnectionReadsAlikeFromEveryRequester() async throws {
        let server = try await TestServer.hostileHTTP()
        let error = try await sameCode(server.url("/reset"), .connectionReset)
        #expect(
            error.description.hasPrefix(
                "the connection to 127.0.0.1:\(server.port) was closed before the whole response arrived"),
            "\(error)")
    }

    @Test func anUntrustedCertificateReadsAlikeFromEveryRequester() async throws {
        let nginx = try await TLSLab.nginx()
        let error = try await sameCode(nginx.https("/root"), .untrustedCertificate)
        #expect(
            error.description
                == "the certificate of localhost is not trusted (unable to get local issuer certificate); "
                + "give its CA in TLSConfiguration.trustRoots")
        #expect(error.tlsError?.kind == .untrustedCertificate)
        #expect(error.tlsKind == .untrustedCertificate)
    }

    @Test func aTimeoutReadsAlikeFromEveryRequester() async throws {
        let server = try await TestServer.hostileHTTP()
        // FoundationNetworking counts whole seconds: a second is the shortest limit it keeps.
        let url = server.url("/slow?ms=5000")
        let error = try await sameCode(url, .timedOut, timeout: .seconds(1))
        #expect(error.description == "no response from 127.0.0.1:\(server.port) in time")
    }

    /// A limit too long to count in milliseconds is no limit, not an overflow (a trap).
    @Test(arguments: Transport.allCases)
    func theLongestTimeoutIsNoLimit(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let request = ResourceRequest(url: server.url("/linked-item/1"), timeout: .seconds(Int64.max))
        let response = try await requester(transport).response(for: request)
        #expect(response.status == 200)
    }

    // MARK: Through the engine

    @Test func theEngineKeepsTheCodeAndRetriesWhatMayPass() async throws {
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
        let closed = try #require(URL(string: "http://127.0.0.1:1/"))
        for transport in Transport.allCases {
            let manager = ResourceManager(requester: try requester(transport), configuration: configuration)
            do {
                _ = try await manager.resource(from: closed)
                Issue.record("a closed port answered")
            } catch let error as HalleyError {
                #expect(error.code == .transport)
                #expect(error.transportError?.code == .connectionRefused, "\(transport): \(error)")
                // A refused connection may be accepted a moment later: it is tried again.
                #expect(
                    error.message
                        == "127.0.0.1:1 refused the connection; check that the server is running and listens on "
                        + "that port (after 2 attempts)", "\(transport)")
                #expect(error.description.hasSuffix("(after 2 attempts) (URL http://127.0.0.1:1/)"))
            }
        }
    }

    @Test func aCustomRequestersURLErrorsJoinTheVocabulary() async throws {
        struct Failing: RequesterInterface, Sendable {
            let error: any Error
            func response(for request: ResourceRequest) async throws -> ResourceResponse { throw error }
        }
        struct Private: Error {}
        let url = try #require(URL(string: "https://api.example.com:8443/x"))
        let cases: [(any Error, TransportError.Code?)] = [
            (URLError(.cannotFindHost), .hostNotFound), (URLError(.cannotConnectToHost), .connectionRefused),
            (URLError(.networkConnectionLost), .connectionReset), (POSIXError(.ECONNRESET), .connectionReset),
            (POSIXError(.ECONNREFUSED), .connectionRefused),
            (URLError(.serverCertificateUntrusted), .untrustedCertificate),
            (Private(), nil),
        ]
        for (thrown, code) in cases {
            do {
                _ = try await ResourceManager(requester: Failing(error: thrown)).resource(from: url)
            } catch let error as HalleyError {
                #expect(error.code == .transport)
                #expect(error.transportError?.code == code, "\(thrown)")
                if code == nil {
                    #expect(error.underlying is Private, "a requester's own error stays as it is")
                    #expect(error.message.hasPrefix("the request to api.example.com failed: "))
                } else {
                    #expect(error.message.contains("api.example.com:8443") || error.message.contains("api.example.com"))
                }
            }
        }
        #expect(TransportError(classifying: CancellationError(), url: url) == nil)
        #expect(TransportError(classifying: URLError(.cancelled), url: url) == nil)
    }

    // MARK: Time limits

    @Test func aPerAttemptTimeoutSpeaksOfEachAttempt() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/slow", json: ["x": 1], latency: .seconds(30))
        for enforcing in [true, false] {
            var options = CallOptions()
            options.requestTimeout = .milliseconds(100)
            let chosen: any ResourceRequester & Sendable =
                enforcing ? requester : LimitIgnoringRequester(base: requester)
            let manager = ResourceManager(requester: chosen)
            do {
                _ = try await manager.resource(from: URL(string: "https://api.example.com/slow")!, options: options)
                Issue.record("a 30 s answer came within 100 ms")
            } catch let error as HalleyError {
                #expect(error.code == .timeout)
                #expect(error.transportError?.code == .timedOut)
                #expect(error.transportError?.limit == .milliseconds(100))
                #expect(
                    error.description
                        == "no response from api.example.com within 100 ms, the time allowed for each attempt "
                        + "(URL https://api.example.com/slow)")
                #expect(!error.message.contains("requestTimeout"))
            }
        }
    }

    @Test func aDeadlineOverAWideFanOutNamesThreeURLsAndCountsTheRest() async throws {
        let requester = InMemoryRequester()
        let base = "https://api.example.com"
        let links = (0..<256).map { JSONValue.object(["href": .string("\(base)/items/\($0)")]) }
        await requester.register(base + "/list", json: ["_links": ["item": .array(links)]])
        for index in 0..<256 {
            await requester.register("\(base)/items/\(index)", json: ["id": .string("\(index)")], latency: .seconds(30))
        }
        var options = CallOptions()
        options.deadline = .milliseconds(100)
        options.maxConcurrency = 256
        do {
            _ = try await ResourceManager(requester: requester).resource(
                from: URL(string: base + "/list")!, includes: ["[item]"], options: options)
            Issue.record("256 answers of 30 s came within 100 ms")
        } catch let error as HalleyError {
            #expect(error.code == .timeout)
            #expect(
                error.message.hasPrefix("the whole call ran out of its 100 ms deadline with 256 requests pending: "),
                "\(error.message)")
            #expect(error.message.hasSuffix(" and 253 more"), "\(error.message)")
            #expect(error.message.components(separatedBy: base).count - 1 == 3, "\(error.message)")
            #expect(error.description.count < 300, "\(error.description.count) characters")
        }
    }
}
