import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The fast path of URL resolution must give exactly what Foundation's
/// `URL(string:relativeTo:)?.absoluteURL` gives, for every reference and base.
@Suite struct URLResolutionTests {
    static let bases = [
        "https://api.example.com", "https://api.example.com/", "https://api.example.com/a/b?q=1#f",
        "http://u@h:8080/x", "https://h?q", "http://127.0.0.1:9000/root", "https://h#frag",
        "https://user:pw@api.example.com:8443/deep/path/", "HTTPS://API.EXAMPLE.COM/Up",
        "file:///tmp/a", "urn:example:x",
    ]

    static let references = [
        "/a", "/a/b?c=d#e", "/a/./b", "/a/../b", "/.", "/..", "//other/x", "https://x.example/a",
        "HTTPS://X/a", "https://x", "/a%20b", "/ä", "/a b", "/a#b#c", "/?q", "/#f", "", "a/b", "../c",
        "./c", "?q", "#f", "/.well-known/x", "/a/.hidden", "https://u:p@h:8080/p?q#f", "https://h/a/../b",
        "http:///x", "/[x]", "/a{b}", "mailto:x", "urn:isbn:1", "/a?b/../c", "/a#/./b", "/orders/7",
        "/contacts/1/avatar?size=64", "https://api.example.com/items/12?page=3&size=10",
        "/a:b@c!$&'()*+,;=", "/~user/_x-y", "https://h:/x", "https://[::1]:8080/x", "/x\\y", "/a/b/",
        "https://h/a/./b", "http://h?x#y", "https://h.", "/a|b", "/%", "/a%2", "https://ü.example/x",
    ]

    func foundation(_ reference: String, _ base: URL?) -> String? {
        URL(string: reference, relativeTo: base)?.absoluteURL.absoluteString
    }

    @Test func everyListedReferenceResolvesAsFoundationDoes() {
        var fastPathUsed = 0
        for baseText in Self.bases {
            let base = URL(string: baseText)
            for reference in Self.references {
                if URLResolution.joined(reference, base) != nil { fastPathUsed += 1 }
                #expect(
                    URLResolution.resolve(reference, against: base)?.absoluteString == foundation(reference, base),
                    "\(reference) against \(baseText)")
            }
        }
        #expect(fastPathUsed > 50, "the fast path is taken for plain hrefs")
    }

    @Test func chainsOfRelativeBasesResolveAsFoundationDoes() throws {
        // An embedded resource's base is relative to its parent's, which may be relative too.
        for baseText in Self.bases {
            for outer in Self.references.prefix(20) {
                for inner in ["/x/y", "z", "../w?q", "https://o.example/p", "#f"] {
                    guard let root = URL(string: baseText), let middle = URL(string: outer, relativeTo: root),
                        let leaf = URL(string: inner, relativeTo: middle)
                    else { continue }
                    #expect(
                        URLResolution.absolute(leaf).absoluteString == leaf.absoluteURL.absoluteString,
                        "\(inner) against \(outer) against \(baseText)")
                }
            }
        }
    }

    @Test func generatedReferencesResolveAsFoundationDoes() {
        // Random references built from the characters that decide between the two paths.
        let pieces = [
            "/", "/", "/", "a", "b", "7", ".", "..", "?", "#", "=", "&", "%", "%20", "ä", " ", ":", "@", "~", "-",
            "https://", "http://", "h", "[", "]", "{", "}", "+", ";", "!", "'",
        ]
        let start = UInt64.random(in: 0...UInt64.max)
        // Reproducible from the seed printed on failure.
        var random = SeededGenerator(seed: start)
        func next(_ bound: Int) -> Int { random.below(bound) }
        for _ in 0..<5_000 {
            var reference = next(3) == 0 ? "" : "/"
            for _ in 0..<next(8) { reference += pieces[next(pieces.count)] }
            let baseText = Self.bases[next(Self.bases.count)]
            let base = URL(string: baseText)
            #expect(
                URLResolution.resolve(reference, against: base)?.absoluteString == foundation(reference, base),
                "\(reference) against \(baseText) (seed \(start))")
        }
    }
}
