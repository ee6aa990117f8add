import Foundation
import HalleyTestSupport
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// The one credential rule ("may this header go to this URL"), as the pipeline, the redirect
/// rules and the cache all read it from the request.
@Suite struct CredentialScopeTests {
    static let api = URL(string: "https://api.example.com/a")!

    @Test func aRequestAlwaysCountsTheDefaultNamesAndLowercasesItsOwn() {
        var request = ResourceRequest(url: Self.api)
        #expect(request.credentialHeaders == ["authorization", "cookie", "proxy-authorization"])
        request.credentialHeaders = ["X-Api-Key"]
        #expect(request.credentialHeaders == ["authorization", "cookie", "proxy-authorization", "x-api-key"])
        request.trustedOrigins = [Origin(Self.api)]
        #expect(request.credentialHeaders.contains("x-api-key"), "setting the origins keeps the names")
        #expect(request.trustedOrigins == [Origin(Self.api)])
    }

    @Test func theRuleLetsCredentialsGoOnlyToTrustedOrigins() throws {
        let scope = CredentialScope(headerNames: ["X-Api-Key"], trustedOrigins: [Origin(Self.api)])
        let other = try #require(URL(string: "https://api.example.com.evil.example/a"))
        for name in ["Authorization", "cookie", "X-API-KEY"] {
            #expect(scope.allows(name, to: Self.api))
            #expect(!scope.allows(name, to: other), "\(name)")
        }
        #expect(scope.allows("Accept", to: other))
        // Other spellings of the trusted origin are parsed, not compared as text.
        #expect(scope.trusts(try #require(URL(string: "https://API.example.com:443/b"))))
    }

    @Test func aScopeWithoutOriginsTrustsTheRequestsOwnOnceAnchored() throws {
        let scope = CredentialScope.unanchored
        #expect(!scope.trusts(Self.api))
        let anchored = scope.anchored(at: Self.api)
        #expect(anchored.trusts(try #require(URL(string: "https://api.example.com/other"))))
        #expect(!anchored.trusts(try #require(URL(string: "https://cdn.example.com/"))))
    }

    /// The defaults are credentials whatever names the manager lists: replacing its list once
    /// sent `Authorization` to every origin a document linked to, while the redirects and the
    /// cache still treated it as a credential.
    @Test func theDefaultNamesStayCredentialsWhenTheManagerListsOthers() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            Graph.base + "/a", json: Graph.resource("/a", links: ["other": Graph.link("https://cdn.example.org/c")]))
        await requester.register("https://cdn.example.org/c", json: ["c": true])
        var configuration = ResourceManager.Configuration()
        configuration.credentialHeaders = ["X-Api-Key"]
        configuration.headers = ["Authorization": "Bearer secret", "Cookie": "s=1", "X-Api-Key": "k", "X-Client": "t"]
        let manager = ResourceManager(requester: requester, configuration: configuration)
        _ = try await manager.resource(from: Graph.url("/a"), includes: ["other"])

        let requests = await requester.requests
        let toOther = try #require(requests.first { $0.url.host == "cdn.example.org" })
        #expect(toOther.headers["Authorization"] == nil)
        #expect(toOther.headers["Cookie"] == nil)
        #expect(toOther.headers["X-Api-Key"] == nil)
        #expect(toOther.headers["X-Client"] == "t")
        let toRoot = try #require(requests.first { $0.url.host == Graph.url("/a").host })
        #expect(toRoot.headers["Authorization"] == "Bearer secret")
    }
}
