import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Templates, variables, URL resolution, credentials, schemes.
@Suite struct TraversalURLTests {
    let base = Graph.base

    private func templatedRoot() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["website": Graph.link("/websites/{id}{?size}", ["templated": true])])
        for id in ["global", "call", "path"] {
            for size in ["", "?size=s", "?size=m"] {
                await requester.register(
                    base + "/websites/\(id)\(size)", json: Graph.resource("/websites/\(id)", ["id": .string(id + size)])
                )
            }
        }
        return requester
    }

    @Test func templatedLinksUseGlobalThenCallThenIncludeVariables() async throws {
        let requester = await templatedRoot()
        let manager = ResourceManager.over(requester) { $0.variables = ["id": "global", "size": "s"] }
        #expect(
            try await manager.resource(from: Graph.url("/a"), includes: ["website"])["website"]?["id"]
                == "global?size=s")

        var options = CallOptions()
        options.variables = ["id": "call"]
        #expect(
            try await manager.resource(from: Graph.url("/a"), includes: ["website"], options: options)["website"]?["id"]
                == "call?size=s")

        let include = Include("website", variables: ["id": "path", "size": "m"])
        #expect(
            try await manager.resource(from: Graph.url("/a"), includes: [include], options: options)["website"]?["id"]
                == "path?size=m")

        let undefined = Include("website", variables: ["size": nil])
        #expect(
            try await manager.resource(from: Graph.url("/a"), includes: [undefined], options: options)["website"]?["id"]
                == "call", "an undefined variable is dropped, per RFC 6570")
    }

    @Test func queryItemsAreAppendedToTheIncludeURL() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["orders": Graph.link("/orders?sort=date")])
        await requester.register(
            base + "/orders?sort=date&page=2", json: Graph.resource("/orders", embedded: ["item": []]))
        let include = Include("[orders]", queryItems: [URLQueryItem(name: "page", value: "2")])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: [include])
        #expect(result["orders"] == [])
        #expect(await requester.requestedURLs.last == base + "/orders?sort=date&page=2")
    }

    @Test func aTemplatedRootIsExpandedWithTheCallVariables() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/search?q=ada%20l", json: Graph.resource("/search", ["hits": 1]))
        var options = CallOptions()
        options.variables = ["q": "ada l"]
        let result = try await ResourceManager(requester: requester).resource(
            from: base + "/search{?q}", options: options)
        #expect(result["hits"] == 1)
        await #expect {
            try await ResourceManager(requester: requester).resource(from: base + "/search{?q")
        } throws: { ($0 as? HalleyError)?.code == .invalidTemplate }
        let manager = ResourceManager(requester: requester)
        #expect(try await manager.traverse(base + "/search{?q}", options: options).document["hits"] == 1)
        #expect(try await manager.document(at: base + "/search{?q}", options: options).state["hits"] == 1)
    }

    @Test func anInvalidLinkTemplateNamesTheIncludePath() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["search": Graph.link("/s{?q", ["templated": true])])
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), includes: ["search"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .invalidTemplate && error.includePath == "search"
                && error.underlying is URITemplateError
        }
    }

    @Test func relativeHrefsResolveAgainstTheFinalURLAfterRedirects() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/old/a",
            InMemoryRequester.Route(
                body: Graph.resource("/new/a", links: ["child": Graph.link("child")]).serialized(),
                finalURL: Graph.url("/new/a")))
        await requester.serve("/new/child", ["found": true])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/old/a"), includes: ["child"])
        #expect(result["child"]?["found"] == true)
    }

    @Test func relativeHrefsInEmbeddedResourcesUseTheirOwnAbsoluteSelf() async throws {
        let requester = InMemoryRequester()
        let embedded: JSONValue = [
            "_links": ["self": ["href": "https://other.example.net/people/7/"], "avatar": ["href": "avatar"]]
        ]
        await requester.serve("/a", embedded: ["owner": embedded])
        await requester.register("https://other.example.net/people/7/avatar", json: ["size": 64])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["owner.avatar"])
        #expect(result["owner"]?["avatar"]?["size"] == 64)
    }

    @Test func credentialsGoOnlyToTheRootOriginAndAllowedOrigins() async throws {
        let requester = InMemoryRequester()
        await requester.serve(
            "/a", links: ["same": Graph.link("/b"), "other": Graph.link("https://cdn.example.org/c")])
        await requester.register(base + "/b", json: ["b": true])
        await requester.register("https://cdn.example.org/c", json: ["c": true])
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["Authorization": "Bearer secret", "User-Agent": "HalleyTests", "X-Api-Key": "k"]
        var options = CallOptions()
        options.credentialHeaders = ["X-Api-Key"]
        let manager = ResourceManager(requester: requester, configuration: configuration)
        _ = try await manager.resource(from: Graph.url("/a"), includes: ["same", "other"], options: options)

        let requests = await requester.requests
        let toOther = try #require(requests.first { $0.url.host == "cdn.example.org" })
        #expect(toOther.headers["Authorization"] == nil)
        #expect(toOther.headers["X-Api-Key"] == nil)
        #expect(toOther.headers["User-Agent"] == "HalleyTests", "non-credential headers travel")
        for request in requests where request.url.host == "api.example.com" {
            #expect(request.headers["Authorization"] == "Bearer secret")
            #expect(request.headers["Accept"]?.hasPrefix("application/hal+json") == true)
        }

        await requester.resetCounts()
        options.allowedOrigins = [try #require(Origin("https://cdn.example.org"))]
        _ = try await manager.resource(from: Graph.url("/a"), includes: ["other"], options: options)
        let allowed = await requester.requests.first { $0.url.host == "cdn.example.org" }
        #expect(allowed?.headers["Authorization"] == "Bearer secret")
    }

    /// The engine decides trust from the URL's text when it starts with a trusted origin
    /// written plainly; these look-alikes must not pass that check, and other spellings of
    /// the trusted origin still count as it.
    @Test func credentialsFollowTheOriginNotTheLookOfTheURL() async throws {
        let lookAlikes = [
            "https://api.example.com.evil.example/x", "https://api.example.com@evil.example/x",
            "https://api.example.comevil.example/x", "https://evil.example/https://api.example.com/x",
            "http://api.example.com/x", "https://api.example.com:8443/x",
        ]
        let sameOrigin = ["https://API.Example.com/y", "https://api.example.com:443/z", "https://api.example.com?q=1"]
        let requester = InMemoryRequester()
        let links = (lookAlikes + sameOrigin).map { Graph.link($0) }
        await requester.serve("/a", links: ["items": .array(links)])
        for url in lookAlikes + sameOrigin { await requester.register(url, json: ["ok": true]) }
        let manager = ResourceManager.over(requester) { $0.headers = ["Authorization": "Bearer secret"] }
        _ = try await manager.resource(from: Graph.url("/a"), includes: ["[items]"])
        let requests = await requester.requests
        for url in lookAlikes {
            let request = try #require(requests.first { $0.url.absoluteString == url }, "\(url) was requested")
            #expect(request.headers["Authorization"] == nil, "\(url) is another origin")
        }
        for request in requests where !lookAlikes.contains(request.url.absoluteString) {
            #expect(request.headers["Authorization"] == "Bearer secret", "\(request.url) is the root's origin")
        }
        #expect(requests.count == 1 + lookAlikes.count + sameOrigin.count)
    }

    @Test func linksWithSchemesTheRequesterDoesNotHandleAreRefused() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["secret": Graph.link("file:///etc/passwd")])
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), includes: ["secret"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .unsupportedScheme && error.url?.absoluteString == "file:///etc/passwd"
                && error.description
                    == "the URL's scheme \"file\" is not supported; this requester takes http and https "
                    + "(include path \"secret\", URL file:///etc/passwd)"
        }
        #expect(await requester.requestCount == 1)
    }

    @Test func aRootWithASchemeTheRequesterDoesNotTakeNamesTheScheme() async throws {
        let requester = InMemoryRequester(supportedSchemes: ["https"])
        let url = try #require(URL(string: "htp://api.example.com/"))
        let error = await #expect(throws: HalleyError.self) {
            _ = try await ResourceManager(requester: requester).document(at: url)
        }
        #expect(error?.code == .unsupportedScheme)
        #expect(error?.message == "the URL's scheme \"htp\" is not supported; this requester takes https")
        #expect(await requester.requestCount == 0)
    }

    @Test func followingADeprecatedLinkEmitsAWarningWithItsURL() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["old": Graph.link("/old", ["deprecation": "https://docs.example.com/old"])])
        await requester.register(base + "/old", json: ["x": 1])
        let log = EventLog()
        let options = log.options
        _ = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["old"], options: options)
        let warnings = log.all.compactMap { event -> (URL, String)? in
            if case .deprecatedLinkFollowed(_, let url, let deprecation) = event { return (url, deprecation) }
            return nil
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.0 == Graph.url("/old"))
        #expect(warnings.first?.1 == "https://docs.example.com/old")
    }
}
