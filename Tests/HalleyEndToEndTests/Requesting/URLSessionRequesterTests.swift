import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `URLSessionRequester` end to end: the public `ResourceManager` API against a real HTTP
/// server (`HalleyTestSupport/hal_test_server.py` serving `Fixtures/server/`) on loopback.
///
/// Tests run in parallel on the same servers and find their own requests in the logs by a
/// unique marker (in the URL or an `X-Request-Tag` header), so they do not depend on each
/// other or on the order they run in.
@Suite struct URLSessionRequesterIntegrationTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) -> ResourceManager {
        .over(URLSessionRequester(), configure: configure)
    }

    /// A marker no other request contains.
    private func marker() -> String { "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// The `HalleyError` the call throws; records an issue when it throws something else or
    /// nothing.
    private func halleyError<Value>(
        sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> Value
    ) async -> HalleyError? {
        do {
            let value = try await call()
            Issue.record("expected a HalleyError, got \(value)", sourceLocation: sourceLocation)
        } catch let error as HalleyError {
            return error
        } catch {
            Issue.record("expected a HalleyError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    // MARK: Templates and relative hrefs

    @Test func templatedRootLinkIsExpandedWithCallAndManagerVariables() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let manager = manager { $0.variables = ["size": 2] }
        var options = CallOptions()
        options.variables = ["page": 0]
        options.headers = ["X-Request-Tag": tag]

        let json = try await manager.resource(from: server.url("/"), includes: ["[contacts].website"], options: options)

        let sent = try await server.requests().filter { $0.headers["x-request-tag"] == tag }.map(\.path)
        #expect(sent.first == "/")
        #expect(sent.contains("/contacts?page=0&size=2"))
        #expect(
            Set(sent) == ["/", "/contacts?page=0&size=2", "/contacts/1", "/contacts/2", "/websites/1", "/websites/2"])

        // `/contacts{?page,size}` became `/contacts?page=0&size=2`, the page with two items;
        // without the variables the server answers with all three contacts.
        let contacts = try #require(json["contacts"]?.arrayValue)
        #expect(contacts.compactMap { $0["name"]?.stringValue } == ["Ada Lovelace", "Grace Hopper"])
        #expect(json["name"]?.stringValue == "Halley integration test API")
        // `../websites/1` from /contacts/1 and `/websites/2` from /contacts/2.
        #expect(json["contacts"]?[0]?["website"]?["url"]?.stringValue == "https://ada.example.com")
        #expect(json["contacts"]?[1]?["website"]?["url"]?.stringValue == "https://grace.example.com")
        #expect(json["contacts"]?[0]?["website"]?["id"]?.intValue == 1)
        #expect(json["contacts"]?[1]?["website"]?["id"]?.intValue == 2)
    }

    @Test func templatedRootURLIsExpandedBeforeTheFirstRequest() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        var options = CallOptions()
        options.variables = ["page": 1, "size": 2]
        options.headers = ["X-Request-Tag": tag]
        let template = server.baseURL.absoluteString + "/contacts{?page,size}"

        let json = try await manager().resource(from: template, includes: ["[item]"], options: options)

        // Only `/contacts?page=1&size=2` has this page; other queries get all three contacts.
        #expect(json["page"]?["number"]?.intValue == 1)
        #expect(json["item"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Alan Turing"])
        let sent = try await server.requests().filter { $0.headers["x-request-tag"] == tag }
        #expect(sent.map(\.path) == ["/contacts?page=1&size=2", "/contacts/3"])
    }

    @Test func relativeHrefsResolveAgainstTheDocumentThatHoldsThem() async throws {
        let server = try await TestServer.shared()
        var options = CallOptions()
        options.variables = ["id": 1]

        // `contacts/{id}` is relative to `/`; `../websites/1` is relative to `/contacts/1`.
        let json = try await manager().resource(from: server.url("/"), includes: ["contact.website"], options: options)

        #expect(json["contact"]?["name"]?.stringValue == "Ada Lovelace")
        #expect(json["contact"]?["website"]?["url"]?.stringValue == "https://ada.example.com")
    }

    // MARK: Redirects

    @Test func redirectedDocumentsResolveTheirHrefsAgainstTheFinalURL() async throws {
        let server = try await TestServer.shared()

        // `person` is /redirect?to=/people/2. That document has no self link, and its hrefs
        // `2/website`, `1` and `./3` exist only under /people/; against /redirect they would
        // be /2/website, /1 and /3, which answer 404 and fail the call.
        let json = try await manager().resource(
            from: server.url("/"), includes: ["person.website", "person.[friends]"])

        let person = try #require(json["person"])
        #expect(person["name"]?.stringValue == "Grace Hopper")
        #expect(person["website"]?["url"]?.stringValue == "https://grace.example.com")
        #expect(
            person["friends"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Ada Lovelace", "Alan Turing"])
    }

    @Test func redirectIsFollowedByTheRequesterItself() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let response = try await URLSessionRequester().response(
            for: ResourceRequest(url: server.redirect(to: "/people/2?tag=\(tag)")))

        #expect(response.status == 200)
        #expect(response.url == server.url("/people/2?tag=\(tag)"))
        #expect(response.headers["content-type"] == "application/hal+json")
        let sent = try await server.requests(containing: tag)
        #expect(sent.map(\.path) == ["/redirect?to=%2Fpeople%2F2%3Ftag%3D\(tag)", "/people/2?tag=\(tag)"])
    }

    // MARK: HTTP errors and bad bodies

    @Test(arguments: [("missing", 404, "Not Found"), ("broken", 500, "Internal Server Error")])
    func errorStatusesBecomeTypedHTTPErrors(rel: String, status: Int, title: String) async throws {
        let server = try await TestServer.shared()
        let error = try #require(
            await halleyError { try await manager().resource(from: server.url("/"), includes: [Include(rel)]) })

        #expect(error.code == .http)
        #expect(error.includePath == rel)
        #expect(error.url == server.url("/status/\(status)"))
        let http = try #require(error.httpError)
        #expect(http.status == status)
        #expect(http.url == server.url("/status/\(status)"))
        #expect(http.headers["Content-Type"] == "application/problem+json")
        #expect(http.problem?["title"]?.stringValue == title)
        #expect(http.problem?["status"]?.intValue == status)
        #expect(http.summary.hasPrefix(title))
        #expect(error.description.contains("include path \"\(rel)\""))
    }

    @Test func failedRootHasNoIncludePath() async throws {
        let server = try await TestServer.shared()
        let error = try #require(await halleyError { try await manager().resource(from: server.url("/contacts/404")) })

        #expect(error.code == .http)
        #expect(error.includePath == nil)
        #expect(error.httpError?.status == 404)
        #expect(error.httpError?.problem?["detail"]?.stringValue == "no document at /contacts/404")
    }

    @Test func htmlBodyIsAnInvalidDocument() async throws {
        let server = try await TestServer.shared()
        let error = try #require(
            await halleyError { try await manager().resource(from: server.url("/"), includes: ["html"]) })

        #expect(error.code == .invalidDocument)
        #expect(error.documentError?.code == .invalidJSON)
        #expect(error.includePath == "html")
        #expect(error.url == server.url("/not-json"))
    }

    @Test func refusedConnectionIsATransportError() async throws {
        let server = try await TestServer.shared()
        // Port 1 (tcpmux) on loopback: nothing listens there, so the connection is refused.
        let closed = try #require(URL(string: "http://127.0.0.1:1/contacts/1"))
        let error = try #require(
            await halleyError { try await manager().resource(from: server.linkTo(closed), includes: ["other"]) })

        #expect(error.code == .transport)
        #expect(error.includePath == "other")
        #expect(error.url == closed)
        #expect(error.transportError?.code == .connectionRefused)
        #expect(error.transportError?.underlying is URLError)
    }

    // MARK: Partial results

    @Test func partialTraversalKeepsWhatArrived() async throws {
        let server = try await TestServer.shared()

        // All three contacts; the website of contact 3 is `../websites/3`, which answers 404.
        let result = try await manager().traverse(
            server.url("/"), includes: ["[contacts].website", "missing", "html", "person"])

        let contacts = try #require(result.document["contacts"]?.arrayValue)
        #expect(contacts.count == 3)
        #expect(contacts[0]["website"]?["url"]?.stringValue == "https://ada.example.com")
        #expect(contacts[1]["website"]?["url"]?.stringValue == "https://grace.example.com")
        #expect(contacts[2]["name"]?.stringValue == "Alan Turing")
        #expect(contacts[2]["website"] == nil)
        #expect(result.document["person"]?["name"]?.stringValue == "Grace Hopper")
        #expect(result.document["missing"] == nil)
        #expect(result.document["html"] == nil)

        let failures = Dictionary(result.failures.map { ($0.includePath ?? "(root)", $0) }) { first, _ in first }
        #expect(failures.keys.sorted() == ["[contacts].website", "html", "missing"])
        #expect(failures["[contacts].website"]?.url == server.url("/websites/3"))
        #expect(failures["[contacts].website"]?.httpError?.status == 404)
        #expect(failures["missing"]?.httpError?.status == 404)
        #expect(failures["html"]?.code == .invalidDocument)
        // Root, contacts, 3 contacts, 3 websites, /status/404, /not-json, person.
        #expect(result.requestCount == 11)
    }

    // MARK: Request headers

    @Test func acceptAndConfiguredHeadersAreSentAtEveryDepth() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let manager = manager { $0.headers = ["X-Client": "halley-integration"] }
        var options = CallOptions()
        options.headers = ["X-Request-Tag": tag]

        let json = try await manager.resource(from: server.url("/"), includes: ["headers"], options: options)

        // The echoed headers of the request for the `headers` relationship (`echo-headers`).
        let echoed = try #require(json["headers"]?["headers"]?.objectValue)
        let accept = try #require(echoed["accept"]?.stringValue)
        #expect(accept.contains("application/hal+json"))
        #expect(echoed["x-client"]?.stringValue == "halley-integration")
        #expect(echoed["x-request-tag"]?.stringValue == tag)

        let sent = try await server.requests().filter { $0.headers["x-request-tag"] == tag }
        #expect(sent.map(\.path) == ["/", "/echo-headers"])
        for request in sent {
            #expect(request.headers["accept"]?.contains("application/hal+json") == true)
            #expect(request.headers["x-client"] == "halley-integration")
        }
    }

    // MARK: Credentials across origins

    @Test func secondServerHasAnotherOrigin() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        #expect(Origin(first.baseURL) != Origin(second.baseURL))
        #expect(first.host == "127.0.0.1")
        #expect(second.host == "127.0.0.2" || second.fallbackReason != nil)
        if let reason = second.fallbackReason {
            // Still another origin (another port on 127.0.0.1), but worth knowing.
            print("URLSessionRequesterIntegrationTests: the second server runs on 127.0.0.1 because \(reason)")
        }
    }

    @Test func credentialsAreNotSentToAnotherOrigin() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        let target = second.url("/echo-headers?tag=\(tag)")
        let manager = manager {
            $0.headers = ["Authorization": "Bearer secret", "X-Client": "halley-integration"]
        }

        let json = try await manager.resource(from: first.linkTo(target), includes: ["other"])

        // The document came from the second server; non-credential headers did arrive there.
        let echoed = try #require(json["other"]?["headers"]?.objectValue)
        #expect(echoed["host"]?.stringValue == "\(second.host):\(second.port)")
        #expect(echoed["x-client"]?.stringValue == "halley-integration")
        #expect(echoed["authorization"] == nil)

        let root = try await first.requests(containing: tag)
        #expect(root.count == 1)
        #expect(root.first?.headers["authorization"] == "Bearer secret")
        let other = try await second.requests(containing: tag)
        #expect(other.count == 1)
        #expect(other.first?.headers["x-client"] == "halley-integration")
        #expect(other.first?.headers.keys.contains("authorization") == false)
    }

    @Test func allowedOriginsReceiveCredentials() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        let manager = manager { $0.headers = ["Authorization": "Bearer secret"] }
        var options = CallOptions()
        options.allowedOrigins = [Origin(second.baseURL)]

        let json = try await manager.resource(
            from: first.linkTo(second.url("/echo-headers?tag=\(tag)")), includes: ["other"], options: options)

        #expect(json["other"]?["headers"]?["authorization"]?.stringValue == "Bearer secret")
        let other = try await second.requests(containing: tag)
        #expect(other.map { $0.headers["authorization"] } == ["Bearer secret"])
    }

    @Test func sameOriginRedirectKeepsCredentials() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let manager = manager { $0.headers = ["Authorization": "Bearer secret"] }

        let json = try await manager.resource(from: server.redirect(to: "/echo-headers?tag=\(tag)"))

        #expect(json["headers"]?["authorization"]?.stringValue == "Bearer secret")
        let sent = try await server.requests(containing: tag)
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.headers["authorization"] == "Bearer secret" })
    }

    @Test func crossOriginRedirectDropsCredentials() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        let target = second.url("/echo-headers?tag=\(tag)")
        let manager = manager {
            $0.headers = ["Authorization": "Bearer secret", "Cookie": "session=abc", "X-Client": "halley-integration"]
        }

        let json = try await manager.resource(from: first.redirect(to: target.absoluteString))

        // The body is the second server's echo of what reached it.
        let echoed = try #require(json["headers"]?.objectValue)
        #expect(echoed["host"]?.stringValue == "\(second.host):\(second.port)")
        #expect(echoed["x-client"]?.stringValue == "halley-integration")
        #expect(echoed["authorization"] == nil)
        #expect(echoed["cookie"] == nil)

        let redirecting = try await first.requests(containing: tag)
        #expect(redirecting.map { $0.headers["authorization"] } == ["Bearer secret"])
        let redirected = try await second.requests(containing: tag)
        #expect(redirected.count == 1)
        #expect(redirected.first?.headers.keys.contains("authorization") == false)
        #expect(redirected.first?.headers.keys.contains("cookie") == false)
    }

    @Test func crossOriginRedirectDropsTheRequestersCustomCredentialHeaders() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        // Only URLSessionRequester's redirect policy knows X-Api-Key carries a credential,
        // so this proves its delegate runs (URLSession itself knows nothing of the header).
        let requester = URLSessionRequester(
            credentialHeaders: URLSessionRequester.defaultCredentialHeaders.union(["X-Api-Key"]))
        let manager = ResourceManager.over(requester) {
            $0.headers = ["X-Api-Key": "key-123", "X-Client": "halley-integration"]
        }

        let json = try await manager.resource(
            from: first.redirect(to: second.url("/echo-headers?tag=\(tag)").absoluteString))

        let echoed = try #require(json["headers"]?.objectValue)
        #expect(echoed["x-client"]?.stringValue == "halley-integration")
        #expect(echoed["x-api-key"] == nil)
        #expect(try await first.requests(containing: tag).map { $0.headers["x-api-key"] } == ["key-123"])
    }

    /// The manager's own credential header names (``ResourceManager/Configuration/credentialHeaders``,
    /// documented as "sent only to the root URL's origin and allowedOrigins"; the guides add
    /// that `URLSessionRequester` strips them from redirects that leave the trusted origins) should
    /// also be dropped when the root's server redirects to another origin: the engine passes
    /// them to the requester on each `ResourceRequest`.
    @Test func crossOriginRedirectDropsTheManagersCustomCredentialHeaders() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        let manager = manager {
            $0.credentialHeaders.insert("X-Api-Key")
            $0.headers = ["X-Api-Key": "key-123", "X-Client": "halley-integration"]
        }

        let json = try await manager.resource(
            from: first.redirect(to: second.url("/echo-headers?tag=\(tag)").absoluteString))

        let echoed = try #require(json["headers"]?.objectValue)
        #expect(echoed["x-client"]?.stringValue == "halley-integration")
        #expect(try await first.requests(containing: tag).map { $0.headers["x-api-key"] } == ["key-123"])
        #expect(echoed["x-api-key"] == nil, "a manager credential header reached \(second.baseURL)")
    }

    /// A redirect to an origin the caller allowed keeps the credentials.
    @Test func redirectToAnAllowedOriginKeepsCredentials() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = marker()
        let manager = manager {
            $0.headers = ["Authorization": "Bearer allowed"]
            $0.allowedOrigins = [Origin(second.baseURL)]
        }
        let json = try await manager.resource(
            from: first.redirect(to: second.url("/echo-headers?tag=\(tag)").absoluteString))
        #expect(json["headers"]?["authorization"] == "Bearer allowed")
    }

    // MARK: Cancellation

    @Test(.timeLimit(.minutes(1))) func cancellingTheCallingTaskStopsASlowRequest() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let slow = server.url("/slow?ms=30000&tag=\(tag)")
        let manager = manager()
        let clock = ContinuousClock()
        let started = clock.now

        let call = Task { try await manager.resource(from: slow) }
        // Wait until the request has reached the server, so the cancellation hits it in flight.
        while try await server.requests(containing: tag).isEmpty, clock.now - started < .seconds(3) {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        let result = await call.result
        let elapsed = clock.now - started

        // Far less than the server's 20 s, with room for a loaded machine under a sanitizer.
        #expect(elapsed < .seconds(25), "took \(elapsed); the server answers after 30 s")
        switch result {
        case .success(let json):
            Issue.record("a cancelled call returned \(json)")
        case .failure(let error):
            #expect(error is CancellationError, "threw \(type(of: error)): \(error)")
        }
        #expect(try await server.requests(containing: tag).count == 1)
    }

    @Test(.timeLimit(.minutes(1))) func alreadyCancelledCallThrowsCancellationError() async throws {
        let server = try await TestServer.shared()
        let manager = manager()
        let clock = ContinuousClock()
        let started = clock.now

        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.resource(from: server.url("/slow?ms=30000"))
        }
        let result = await call.result

        #expect(clock.now - started < .seconds(25), "the server answers after 30 s")
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test(.timeLimit(.minutes(1))) func failedRelationshipCancelsItsSlowSibling() async throws {
        let server = try await TestServer.shared()
        let clock = ContinuousClock()
        let started = clock.now

        // `report` takes 30 s; `alerts` answers 404 at once and fails the whole call.
        let error = try #require(
            await halleyError {
                try await manager().resource(from: server.url("/dashboard"), includes: ["report", "owner", "alerts"])
            })

        #expect(clock.now - started < .seconds(25), "the call waited for the slow sibling")
        #expect(error.code == .http)
        #expect(error.includePath == "alerts")
        #expect(error.httpError?.status == 404)
    }

    // MARK: The server itself

    @Test func serverRecordsRequestsAndResets() async throws {
        // A server of its own: resetting a shared log would race with the other tests.
        let server = try await TestServer.isolated()
        let tag = marker()
        let response = try await URLSessionRequester().response(
            for: ResourceRequest(url: server.url("/contacts/1?tag=\(tag)"), headers: ["X-Request-Tag": tag]))
        #expect(response.status == 200)

        let recorded = try await server.requests()
        #expect(recorded.map(\.method) == ["GET"])
        #expect(recorded.map(\.path) == ["/contacts/1?tag=\(tag)"])
        #expect(recorded.first?.headers["x-request-tag"] == tag)
        #expect(recorded.first?.headers["host"] == "\(server.host):\(server.port)")

        try await server.reset()
        #expect(try await server.requests().isEmpty)
    }
}
