import Foundation
import Testing

@testable import Halley

/// `RedirectChain`: the redirect rules that `CurlRequester` and the server-side example's
/// requester share (over HTTP, `TransportRedirectTests` runs them through both transports).
@Suite struct RedirectChainTests {
    static let start = URL(string: "https://api.example.com/a/b?x=1#part")!

    func request(_ method: RequestMethod = .get, body: Data? = nil, headers: HeaderFields = [:]) -> ResourceRequest {
        var request = ResourceRequest(url: Self.start, method: method)
        request.headers = headers
        request.body = body
        return request
    }

    @Test func theDocumentationLoopEndsWithTheAnswer() async throws {
        // The loop of RedirectChain's documentation, against a server that redirects twice.
        let request = request()
        var answers = [(302, Optional("/c")), (307, Optional("https://cdn.example.com/d")), (200, nil)]
        func send(_ hop: RedirectChain.Hop) async throws -> (Int, String?) { answers.removeFirst() }

        var chain = RedirectChain(request, maxRedirects: 10)
        while true {
            let (status, location) = try await send(chain.current)  // your transport
            guard try chain.follow(status: status, location: location) else { break }
        }
        #expect(chain.current.url.absoluteString == "https://cdn.example.com/d#part")
        #expect(chain.redirects == 2)
    }

    @Test func locationsResolveAgainstTheHopAndKeepItsFragment() throws {
        var chain = RedirectChain(request(), maxRedirects: 5)
        #expect(try chain.follow(status: 301, location: "../c?y=2"))
        #expect(chain.current.url.absoluteString == "https://api.example.com/c?y=2#part")
        #expect(try chain.follow(status: 308, location: "/d#own"))
        #expect(chain.current.url.absoluteString == "https://api.example.com/d#own")
    }

    @Test func onlyRedirectStatusesWithALocationAreFollowed() throws {
        var chain = RedirectChain(request(), maxRedirects: 5)
        for status in [200, 204, 300, 304, 305, 306, 404] {
            #expect(try !chain.follow(status: status, location: "/elsewhere"), "\(status)")
        }
        #expect(try !chain.follow(status: 302, location: nil))
        #expect(chain.current.url == Self.start)
        #expect(chain.redirects == 0)
    }

    @Test func methodsChangeAsBrowsersDo() throws {
        let body = Data("{}".utf8)
        let headers: HeaderFields = ["Content-Type": "application/json", "Content-Length": "2", "Accept": "a/b"]
        for (status, method, becomesGet) in [
            (301, RequestMethod.post, true), (302, .post, true), (303, .post, true), (303, .put, true),
            (303, .head, false), (301, .put, false), (302, .delete, false), (307, .post, false), (308, .put, false),
        ] {
            var chain = RedirectChain(request(method, body: body, headers: headers), maxRedirects: 5)
            #expect(try chain.follow(status: status, location: "/next"))
            let hop = chain.current
            if becomesGet {
                #expect(hop.method == .get && hop.body == nil, "\(status) after \(method)")
                #expect(hop.headers["Content-Type"] == nil && hop.headers["Content-Length"] == nil)
            } else {
                #expect(hop.method == method && hop.body == body, "\(status) after \(method)")
                #expect(hop.headers["Content-Type"] == "application/json")
            }
            #expect(hop.headers["Accept"] == "a/b")
        }
    }

    @Test func badTargetsAndTooManyHopsAreRedirectErrors() throws {
        var chain = RedirectChain(request(), maxRedirects: 1)
        #expect(throws: RedirectError(url: Self.start, reason: .unsupportedScheme("file"))) {
            try chain.follow(status: 302, location: "file:///etc/passwd")
        }
        #expect(throws: RedirectError(url: Self.start, reason: .invalidLocation("http:///nohost"))) {
            try chain.follow(status: 302, location: "http:///nohost")
        }
        #expect(try chain.follow(status: 302, location: "/one"))
        let one = chain.current.url
        #expect(throws: RedirectError(url: one, reason: .tooManyRedirects(limit: 1))) {
            try chain.follow(status: 302, location: "/two")
        }
    }

    @Test func credentialsAndHostStayWithTheirOrigins() throws {
        var request = request(
            headers: ["Authorization": "Bearer t", "X-Api-Key": "k", "Host": "api.example.com", "Accept": "a/b"])
        request.credentialHeaders = ["x-api-key"]
        var chain = RedirectChain(request, credentialHeaders: ["Authorization"], maxRedirects: 5)
        #expect(try chain.follow(status: 302, location: "/same-origin"))
        #expect(chain.current.headers["Authorization"] == "Bearer t" && chain.current.headers["X-Api-Key"] == "k")
        #expect(chain.current.headers["Host"] == "api.example.com")

        #expect(try chain.follow(status: 302, location: "https://other.example.com/"))
        #expect(chain.current.headers["Authorization"] == nil && chain.current.headers["X-Api-Key"] == nil)
        #expect(chain.current.headers["Host"] == nil)
        #expect(chain.current.headers["Accept"] == "a/b")

        // Once dropped, they stay dropped when the chain comes back.
        #expect(try chain.follow(status: 302, location: "https://api.example.com/back"))
        #expect(chain.current.headers["Authorization"] == nil)
    }

    @Test func trustedOriginsKeepCredentials() throws {
        var request = request(headers: ["Authorization": "Bearer t"])
        request.credentialHeaders = ["authorization"]
        request.trustedOrigins = [Origin(Self.start), Origin(URL(string: "https://cdn.example.com")!)]
        var chain = RedirectChain(request, maxRedirects: 5)
        #expect(try chain.follow(status: 307, location: "https://cdn.example.com/x"))
        #expect(chain.current.headers["Authorization"] == "Bearer t")
    }
}
