import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Redirects through both HTTP requesters against a real server: the method and body rules
/// of 301/302/303/307/308, the credential rules on every hop, the limits.
@Suite struct TransportRedirectTests {
    /// `/redirect?status=<status>&to=<target>` on `server`.
    private func redirect(_ server: TestServer, _ status: Int, to target: String) -> URL {
        server.url("/redirect?status=\(status)&to=" + TestServer.queryValue(target))
    }

    private func send(
        _ transport: Transport, _ url: URL, method: RequestMethod = .get, body: String? = nil,
        headers: HeaderFields = [:], configure: (inout ResourceRequest) -> Void = { _ in }
    ) async throws -> ResourceResponse {
        var request = ResourceRequest(
            url: url, method: method, headers: headers, body: body.map { Data($0.utf8) },
            timeout: .seconds(20))
        configure(&request)
        return try await transport.make().response(for: request)
    }

    // MARK: Methods and bodies

    @Test(arguments: Transport.allCases, [301, 302, 303])
    func aPOSTRedirectedBy301302Or303BecomesAGETWithoutItsBody(transport: Transport, status: Int) async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await send(
            transport, redirect(server, status, to: "/echo"), method: .post, body: #"{"a": 1}"#,
            headers: ["Content-Type": "application/json"])
        let echo = try EchoedRequest(response)
        #expect(response.status == 200)
        #expect(echo.method == "GET")
        #expect(echo.body == "")
        #expect(echo.headers["content-type"] == nil)
        #expect(echo.url == server.url("/echo"))
    }

    @Test(arguments: Transport.allCases, [307, 308])
    func a307Or308KeepsTheMethodAndBody(transport: Transport, status: Int) async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await send(
            transport, redirect(server, status, to: "/echo"), method: .put, body: #"{"b": 2}"#,
            headers: ["Content-Type": "application/json"])
        if transport.hasFoundationNetworkingGaps {
            // FoundationNetworking would send the PUT again without its body; the requester
            // returns the redirect instead.
            #expect(response.status == status)
            return
        }
        let echo = try EchoedRequest(response)
        #expect(echo.method == "PUT")
        #expect(echo.body == #"{"b": 2}"#)
        #expect(echo.headers["content-type"] == "application/json")
    }

    @Test(arguments: Transport.allCases)
    func a303AfterADeleteBecomesAGET(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let echo = try EchoedRequest(try await send(transport, redirect(server, 303, to: "/echo"), method: .delete))
        #expect(echo.method == "GET")
    }

    @Test(arguments: Transport.allCases)
    func aRedirectChainEndsAtTheFinalURL(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let inner = redirect(server, 307, to: "/echo?final=1").absoluteString
        let response = try await send(transport, redirect(server, 301, to: inner))
        #expect(response.url == server.url("/echo?final=1"))
        #expect(try EchoedRequest(response).method == "GET")
    }

    @Test(arguments: Transport.allCases)
    func aStatusThatIsNotARedirectIsReturned(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        // 300 Multiple Choices with a Location is the caller's to decide.
        let response = try await send(transport, redirect(server, 300, to: "/echo"))
        #expect(response.status == 300)
        #expect(response.headers["Location"] == "/echo")
    }

    // MARK: Credentials

    @Test(arguments: Transport.allCases)
    func aCrossOriginHopDropsEveryCredentialHeaderCustomOnesIncluded(transport: Transport) async throws {
        let first = try await TestServer.hostileHTTP()
        let second = try await TestServer.hostileHTTPOtherPort()
        let headers: HeaderFields = [
            "Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic cHJveHk=",
            "X-Api-Key": "key-123", "X-Client": "halley",
        ]
        let response = try await send(
            transport, redirect(first, 302, to: second.url("/echo").absoluteString),
            headers: headers
        ) { $0.credentialHeaders = ["x-api-key"] }
        let echo = try EchoedRequest(response)
        #expect(echo.url == second.url("/echo"))
        #expect(echo.headers["x-client"] == "halley")
        for name in ["authorization", "cookie", "proxy-authorization", "x-api-key"] {
            #expect(echo.headers[name] == nil, "\(name) reached \(second.baseURL)")
        }
    }

    /// Whether a hop becomes a `GET` is decided by status and method alone, the same for
    /// every requester: a redirected `GET` keeps every field it was sent with, credentials
    /// within the origin included (URLSession's redirects once dropped the body's fields from
    /// any hop without a body).
    @Test(arguments: Transport.allCases)
    func aSameOriginHopThatKeepsItsMethodKeepsEveryField(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let echo = try EchoedRequest(
            try await send(
                transport, redirect(server, 302, to: "/echo"),
                headers: ["Authorization": "Bearer secret", "Content-Language": "en", "Content-Location": "/drafts/1"]))
        #expect(echo.method == "GET")
        #expect(echo.headers["authorization"] == "Bearer secret")
        #expect(echo.headers["content-language"] == "en")
        #expect(echo.headers["content-location"] == "/drafts/1")
    }

    @Test(arguments: Transport.allCases)
    func aHopToATrustedOriginKeepsCredentials(transport: Transport) async throws {
        let first = try await TestServer.hostileHTTP()
        let second = try await TestServer.hostileHTTPOtherPort()
        let response = try await send(
            transport, redirect(first, 307, to: second.url("/echo").absoluteString),
            headers: ["Authorization": "Bearer shared", "X-Api-Key": "k"]
        ) {
            $0.credentialHeaders = ["x-api-key"]
            $0.trustedOrigins = [Origin(first.baseURL), Origin(second.baseURL)]
        }
        let echo = try EchoedRequest(response)
        #expect(echo.headers["authorization"] == "Bearer shared")
        #expect(echo.headers["x-api-key"] == "k")
    }

    /// Once a chain leaves the trusted origins its credentials are gone, even if a later hop
    /// comes back: the server that redirected back was not trusted.
    @Test func credentialsDroppedOnAHopStayDroppedWhenTheChainComesBack() async throws {
        let first = try await TestServer.hostileHTTP()
        let second = try await TestServer.hostileHTTPOtherPort()
        let back = redirect(second, 302, to: first.url("/echo").absoluteString).absoluteString
        let echo = try EchoedRequest(
            try await send(.curl, redirect(first, 302, to: back), headers: ["Authorization": "Bearer secret"]))
        #expect(echo.url == first.url("/echo"))
        #expect(echo.headers["authorization"] == nil)
    }

    /// A `Host` the caller set names the first origin; the next origin gets its own.
    @Test func aCallersHostHeaderDoesNotFollowToAnotherOrigin() async throws {
        let first = try await TestServer.hostileHTTP()
        let second = try await TestServer.hostileHTTPOtherPort()
        let response = try await send(
            .curl, redirect(first, 302, to: second.url("/echo").absoluteString),
            headers: ["Host": "\(first.host):\(first.port)"])
        #expect(try EchoedRequest(response).headers["host"]?.stringValue == "\(second.host):\(second.port)")
    }

    // MARK: One rule, whichever requester follows

    /// Every field that describes a body, sent with a `POST` whose body goes chunked.
    static let bodyFields: HeaderFields = [
        "Content-Type": "application/json", "Content-Encoding": "identity", "Content-Language": "en",
        "Content-Location": "/drafts/1", "Transfer-Encoding": "chunked", "X-Kept": "yes",
    ]

    /// A hop that becomes a `GET` loses the same fields whichever requester follows it:
    /// URLSession's redirects once kept `Transfer-Encoding`, which `RedirectChain` dropped.
    @Test(arguments: Transport.allCases, [303, 301, 302])
    func everyRequesterDropsTheSameBodyFieldsWhenAHopBecomesAGET(transport: Transport, status: Int) async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await send(
            transport, redirect(server, status, to: "/echo"), method: .post, body: #"{"a": 1}"#,
            headers: Self.bodyFields)
        let echo = try EchoedRequest(response)
        #expect(echo.url == server.url("/echo"))
        #expect(echo.method == "GET")
        #expect(echo.body == "")
        for name in ["content-type", "content-encoding", "content-language", "content-location", "transfer-encoding"] {
            #expect(echo.headers[name] == nil, "\(name) followed a \(status) that made a GET")
        }
        #expect(echo.headers["content-length"] == nil)
        #expect(echo.headers["x-kept"] == "yes")
    }

    /// From `127.0.0.1` to `127.0.0.2`: every requester drops `Authorization`, `Cookie` and the
    /// names it was given, even when it was given only names of its own (URLSessionRequester
    /// once dropped only those, and forwarded `Authorization`).
    @Test(arguments: Transport.allCases)
    func aCrossOriginRedirectDropsTheDefaultCredentialsWhateverNamesTheRequesterHas(transport: Transport)
        async throws
    {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let requester: any RequesterInterface =
            switch transport {
            case .urlsession: URLSessionRequester(credentialHeaders: ["X-Api-Key"])
            case .curl: try CurlRequester(credentialHeaders: ["X-Api-Key"])
            }
        let request = ResourceRequest(
            url: first.redirect(to: second.url("/echo-headers").absoluteString),
            headers: ["Authorization": "Bearer secret", "Cookie": "session=1", "X-Api-Key": "k", "X-Client": "halley"],
            timeout: .seconds(20))
        let response = try await requester.response(for: request)
        #expect(response.url == second.url("/echo-headers"))
        let echoed = try #require(try JSONValue(parsing: response.body)["headers"]?.objectValue)
        #expect(echoed["x-client"] == "halley")
        for name in ["authorization", "cookie", "x-api-key"] {
            #expect(echoed[name] == nil, "\(name) reached \(second.baseURL)")
        }
    }

    // MARK: Limits and refusals

    @Test(arguments: Transport.allCases)
    func aRedirectLoopIsATypedError(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await send(transport, server.url("/loop"))
            Issue.record("a redirect loop answered \(response.status)")
        } catch let error as TransportError {
            #expect(error.code == .tooManyRedirects)
            if transport == .curl {
                #expect(error.redirectError?.reason == .tooManyRedirects(limit: CurlRequester.defaultMaxRedirects))
            } else {
                // URLSession gives up on its own after 20 redirects.
                #expect((error.underlying as? URLError)?.code == .httpTooManyRedirects)
            }
        }
        // The loop ends rather than running on; 5 s was passed under ThreadSanitizer with load.
        #expect(clock.now - start < .seconds(30))
    }

    @Test func theRedirectLimitIsTheRequestersOwn() async throws {
        let server = try await TestServer.hostileHTTP()
        let twice = redirect(server, 302, to: redirect(server, 302, to: "/echo").absoluteString)
        let requester = try CurlRequester(maxRedirects: 1)
        await #expect {
            _ = try await requester.response(for: ResourceRequest(url: twice))
        } throws: { error in
            (error as? TransportError)?.redirectError
                == RedirectError(
                    url: server.url("/redirect?status=302&to=%2Fecho"), reason: .tooManyRedirects(limit: 1))
        }
        let once = try await requester.response(for: ResourceRequest(url: redirect(server, 302, to: "/echo")))
        #expect(once.status == 200)
    }

    /// Both requesters read the `Location` through `RedirectChain` (FoundationNetworking on its
    /// own keeps the origin of a `Location` without a host and asks the server for
    /// `/etc/passwd`).
    @Test(arguments: Transport.allCases)
    func aRedirectToAFileURLIsRefused(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        // Both requesters drive RedirectChain, which refuses a hop out of HTTP before sending it.
        do {
            _ = try await send(transport, redirect(server, 302, to: "file:///etc/passwd"))
            Issue.record("\(transport) followed a file: redirect")
        } catch let error as TransportError {
            #expect(error.code == .redirectRefused)
            #expect(error.redirectError?.reason == .unsupportedScheme("file"))
        }
    }

    @Test func anUnparsableLocationIsATypedError() async throws {
        let server = try await TestServer.hostileHTTP()
        await #expect {
            _ = try await send(.curl, redirect(server, 302, to: "http://exa mple.com/[x"))
        } throws: { error in
            if case .invalidLocation? = (error as? TransportError)?.redirectError?.reason { return true }
            return false
        }
    }
}
