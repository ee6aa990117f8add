import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The state layer's rules on their own: URL normalisation and the invalidation rule.
@Suite struct StateRulesTests {
    @Test(arguments: [
        ("HTTPS://Api.Example.COM:443/a/./b/../c", "https://api.example.com/a/c"),
        ("http://api.example.com:80", "http://api.example.com/"),
        ("http://api.example.com:8080/x", "http://api.example.com:8080/x"),
        ("https://api.example.com/%7euser/%2f?q=%7e%2a#part", "https://api.example.com/~user/%2F?q=~%2A"),
        ("https://api.example.com/a/..", "https://api.example.com/"),
        ("https://api.example.com/a.json", "https://api.example.com/a.json"),
        ("https://api.example.com/.well-known/x?a=/./b", "https://api.example.com/.well-known/x?a=/./b"),
        ("http://127.0.0.1:8080/scripted/a", "http://127.0.0.1:8080/scripted/a"),
    ])
    func urlsAreNormalisedAsRFC3986Says(written: String, normal: String) throws {
        #expect(URLNormalization.normalized(try #require(URL(string: written))).absoluteString == normal)
    }

    /// Which embedded resources a document's state keeps a copy of: the same origin only,
    /// whether both URLs are plainly normal (compared as text) or not (parsed).
    @Test(
        arguments: [
            ("https://api.example.com/orders", "https://api.example.com/orders/1", "https://api.example.com/orders/1"),
            (
                "https://api.example.com/orders", "HTTPS://API.example.com:443/orders/1",
                "https://api.example.com/orders/1"
            ),
            (
                "https://api.example.com:443/orders", "https://api.example.com/orders/1",
                "https://api.example.com/orders/1"
            ),
            ("https://api.example.com/orders", "https://api.example.com.evil.example/orders/1", nil),
            ("https://api.example.com/orders", "https://api.example.co/orders/1", nil),
            ("https://api.example.com/orders", "http://api.example.com/orders/1", nil),
            ("http://api.example.com/orders", "https://api.example.com/orders/1", nil),
            ("https://api.example.com/orders", "https://api.example.com:8443/orders/1", nil),
            ("http://127.0.0.1:8080/orders", "http://127.0.0.1:8080/orders/1", "http://127.0.0.1:8080/orders/1"),
            ("http://127.0.0.1:8080/orders", "http://127.0.0.1:8081/orders/1", nil),
        ] as [(String, String, String?)])
    func anEmbeddedResourceIsKeptOnlyOnItsParentsOrigin(parent: String, item: String, key: String?) throws {
        let location = try #require(URL(string: item))
        #expect(StateStorage.storableKey(LazyURL(location), under: StateStorage.KeyParent(parent))?.text == key)
        let document = try HALResource(
            json: [
                "_links": ["self": ["href": .string(parent)]],
                "_embedded": ["item": [["_links": ["self": ["href": .string(item)]], "n": 1]]],
            ], url: URL(string: parent))
        let parentURL = try #require(URL(string: parent))
        let carried = StateStorage.carried(by: document, at: parentURL)
        #expect(carried.embedded.map(\.key) == (key.map { [$0] } ?? []))
        #expect(carried.items == Set(key.map { [$0] } ?? []))
    }

    /// One walk finds both: every embedded resource with a `self` link (any relation, any
    /// depth) is a copy to keep; only the top-level `item` relation, embedded or linked, lists.
    @Test func theItemsAreTheTopLevelItemRelationEmbeddedOrLinked() throws {
        let base = "https://api.example.com"
        func resource(_ path: String, _ embedded: JSONObject = [:]) -> JSONValue {
            var object: JSONObject = ["_links": ["self": ["href": .string(base + path)]]]
            if !embedded.isEmpty { object["_embedded"] = .object(embedded) }
            return .object(object)
        }
        let document = try HALResource(
            json: [
                "_links": ["self": ["href": .string(base + "/orders")], "item": [["href": "/orders/3"]]],
                "_embedded": [
                    "item": [resource("/orders/1", ["customer": resource("/customers/9")])],
                    "summary": resource("/orders/summary"),
                ],
            ], url: URL(string: base + "/orders"))
        let carried = StateStorage.carried(by: document, at: try #require(URL(string: base + "/orders")))
        #expect(carried.embedded.map(\.key) == [base + "/orders/1", base + "/customers/9", base + "/orders/summary"])
        #expect(carried.items == [base + "/orders/1", base + "/orders/3"])
    }

    private func invalidation(_ headers: HeaderFields, status: Int = 200, trusting: Set<String> = [])
        -> ResponseInvalidation
    {
        let target = Graph.url("/orders/1")
        return ResponseInvalidation(
            method: .put, target: target,
            response: ResourceResponse(status: status, headers: headers, url: target, body: Data()),
            trusts: { url in trusting.contains(url.host ?? "") })
    }

    @Test func theRuleNamesTheTargetLocationContentLocationAndInvalidatesLinksOnTrustedOrigins() {
        let rule = invalidation(
            [
                "Location": "/orders/2", "Content-Location": "https://partner.example/x",
                "Link": "</a>; rel=invalidates, </b>; rel=\"next invalidates\", </c>; rel=next",
            ], trusting: ["partner.example"])
        #expect(
            rule.invalidated.map(\.absoluteString) == [
                Graph.base + "/orders/1", Graph.base + "/orders/2", "https://partner.example/x", Graph.base + "/a",
                Graph.base + "/b",
            ])
        #expect(rule.ignored.isEmpty)
    }

    @Test func untrustedOriginsAndUnparseableValuesAreIgnoredAndSaidWhy() {
        let rule = invalidation(["Location": "https://evil.example/x", "Content-Location": "http://[bad"])
        #expect(rule.invalidated.map(\.absoluteString) == [Graph.base + "/orders/1"])
        #expect(rule.location == nil && rule.contentLocation == nil)
        #expect(rule.ignored.map(\.field) == ["Location", "Content-Location"])
        #expect(rule.ignored[0].reason.contains("https://evil.example"))
        #expect(rule.ignored[1].reason == "it is not a URL reference")
    }

    @Test func onlyA2xxInvalidates() {
        #expect(invalidation(["Location": "/orders/2"], status: 409).invalidated.isEmpty)
    }
}
