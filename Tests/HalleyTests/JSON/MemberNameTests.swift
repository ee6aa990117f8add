import Foundation
import Halley
import Testing

/// Member names and relations are compared code unit by code unit (RFC 8259 §8.3): two names
/// that differ only in Unicode normalisation are two members, kept from the parser to the
/// output, and a typed decode that would merge them says so.
@Suite struct MemberNameTests {
    /// "misérables" with a precomposed é (U+00E9) and with e + U+0301: equal as Swift Strings.
    static let precomposed = "mis\u{E9}rables"
    static let decomposed = "mise\u{301}rables"

    /// The two spellings as JSON text, written with escapes so this file's own encoding
    /// cannot change them.
    static let body = #"{"mis\u00e9rables": 4, "mise\u0301rables": 2}"#

    @Test func theSpellingsAreEqualAsSwiftStrings() {
        // What the rest of this suite guards against: String's `==` calls them one name.
        #expect(Self.precomposed == Self.decomposed)
        #expect(Array(Self.precomposed.utf8) != Array(Self.decomposed.utf8))
    }

    @Test func parsingKeepsBothMembersEachWithItsValue() throws {
        let object = try #require(try JSONValue(parsing: Self.body).objectValue)
        #expect(object.count == 2)
        #expect(object.keys.map { Array($0.utf8) } == [Array(Self.precomposed.utf8), Array(Self.decomposed.utf8)])
        #expect(object[Self.precomposed] == 4)
        #expect(object[Self.decomposed] == 2)
        // A name repeated with the same code units (here through an escape) is still one member.
        let repeated = try #require(try JSONValue(parsing: #"{"mis\u00e9rables": 1, "misérables": 3}"#).objectValue)
        #expect(repeated.count == 1 && repeated[Self.precomposed] == 3)
    }

    /// Past a few dozen keys an object looks names up through a hash index.
    @Test func aLargeObjectKeepsBothMembersThroughItsIndex() throws {
        let filler = (0..<40).map { #""k\#($0)": \#($0)"# }.joined(separator: ", ")
        let text = "{" + filler + #", "mis\u00e9rables": 4, "mise\u0301rables": 2}"#
        var object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == 42)
        #expect(object[Self.precomposed] == 4 && object[Self.decomposed] == 2)
        object[Self.decomposed] = nil
        #expect(object.count == 41 && object[Self.precomposed] == 4 && object[Self.decomposed] == nil)
    }

    @Test func objectsBuiltInCodeKeepBothToo() {
        var object: JSONObject = [Self.precomposed: 4]
        object[Self.decomposed] = 2
        #expect(object.count == 2)
        #expect(object != [Self.precomposed: 4, Self.precomposed: 2])
        #expect(object == [Self.decomposed: 2, Self.precomposed: 4], "equality ignores order, not spelling")
    }

    @Test(arguments: [JSONWritingOptions(), .sortedKeys, .prettyPrinted])
    func writtenOutputKeepsBothMembers(options: JSONWritingOptions) throws {
        let value = try JSONValue(parsing: Self.body)
        let written = value.serialized(options: options)
        let reread = try #require(try JSONValue(parsing: written).objectValue)
        #expect(reread.count == 2)
        #expect(reread[Self.precomposed] == 4 && reread[Self.decomposed] == 2)
        #expect(written.range(of: Data(Self.precomposed.utf8)) != nil)
        #expect(written.range(of: Data(Self.decomposed.utf8)) != nil)
    }

    /// A well-formed `_links` is read from the document on demand; one with CURIEs (or a
    /// malformed link) is checked link by link. Both keep both relations.
    @Test(arguments: [
        "",
        #", "curies": [{"name": "ex", "href": "/rels/{rel}", "templated": true}]"#,
        #", "broken": {"title": "no href"}"#,
    ])
    func linksKeepBothRelations(extra: String) throws {
        let body = """
            {"_links": {"self": {"href": "/books"},
                        "mis\\u00e9rables": {"href": "/books/4"},
                        "mise\\u0301rables": [{"href": "/books/2"}]\(extra)}}
            """
        let links = try HALResource(parsing: Data(body.utf8)).links
        let rels = links.rels.filter { $0 != "curies" && $0 != "broken" }
        #expect(
            rels.map { Array($0.rawValue.utf8) } == [
                [UInt8]("self".utf8), .init(Self.precomposed.utf8), .init(Self.decomposed.utf8),
            ])
        #expect(links.link(for: LinkRelation(Self.precomposed))?.href == "/books/4")
        #expect(links.link(for: LinkRelation(Self.decomposed))?.href == "/books/2")
        #expect(links.links(for: LinkRelation(Self.decomposed))?.map(\.href) == ["/books/2"])
        #expect(links.relation(LinkRelation(Self.precomposed))?.isArray == false)
        #expect(links.relation(LinkRelation(Self.decomposed))?.isArray == true)
        #expect(Set(links.relations.map(\.rel)).count == links.relations.count)
        let json = links.json
        #expect(json[Self.precomposed]?["href"] == "/books/4")
        #expect(json[Self.decomposed]?[0]?["href"] == "/books/2")
    }

    @Test func relationsDifferingInNormalisationAreTwoRelations() {
        let precomposed = LinkRelation(Self.precomposed)
        let decomposed = LinkRelation(Self.decomposed)
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect((precomposed < decomposed) != (decomposed < precomposed), "ordered, not tied")
        let built = Links([precomposed: [Link(href: "/books/4")], decomposed: [Link(href: "/books/2")]])
        #expect(built.link(for: decomposed)?.href == "/books/2")
    }

    @Test func embeddedResourcesKeepBothRelations() throws {
        let body = """
            {"_embedded": {"mis\\u00e9rables": {"n": 4}, "mise\\u0301rables": [{"n": 2}]}}
            """
        let embedded = try HALResource(parsing: Data(body.utf8)).embedded
        #expect(embedded.rels.count == 2)
        #expect(embedded.resources(for: LinkRelation(Self.precomposed)).map { $0.json["n"] } == [4])
        #expect(embedded.resources(for: LinkRelation(Self.decomposed)).map { $0.json["n"] } == [2])
    }

    // MARK: Typed decoding

    static let url = "https://api.example.com/counts"

    static func manager(answering body: String) async -> ResourceManager {
        await .answering(body, at: url)
    }

    /// The decoding error of a typed call, with its coding path as text.
    static func decodingFailure<T: Decodable & Sendable>(
        _ type: T.Type, body: String, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (message: String, path: [String]) {
        let manager = await manager(answering: body)
        do {
            let value = try await manager.request(HalleyRequest<T>(url: url, decoder: decoder))
            Issue.record("decoded \(value) without an error")
            throw CancellationError()
        } catch let error as HalleyError {
            #expect(error.code == .decoding, "\(error)")
            guard case .dataCorrupted(let context)? = error.underlying as? DecodingError else {
                Issue.record("not dataCorrupted: \(String(describing: error.underlying))")
                throw error
            }
            return (context.debugDescription, context.codingPath.map(\.stringValue))
        }
    }

    @Test(arguments: [false, true])
    func aStringKeyedDictionaryReportsTheCollision(convertsKeys: Bool) async throws {
        let decoder = JSONDecoder()
        if convertsKeys { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        let failure = try await Self.decodingFailure([String: Int].self, body: Self.body, decoder: decoder)
        #expect(
            failure.message
                == #"The members "mis\u{E9}rables" and "mise\u{301}rables" are different JSON names (RFC 8259 "#
                + "compares code units) but equal as Swift Strings, so decoding them as String keys would keep only one."
        )
        #expect(failure.path.map { Array($0.utf8) } == [Array(Self.precomposed.utf8)])
    }

    @Test func aNestedDictionaryReportsTheCollisionAtItsPath() async throws {
        struct Shelf: Decodable, Sendable {
            let title: String
            let counts: [String: Int]
        }
        let body = #"{"title": "t", "counts": {"a": 1, "mise\u0301rables": 2, "mis\u00e9rables": 4}}"#
        let failure = try await Self.decodingFailure(Shelf.self, body: body)
        #expect(failure.path.first == "counts")
        #expect(failure.path.dropFirst().map { Array($0.utf8) } == [Array(Self.decomposed.utf8)])
        #expect(failure.message.contains(#""mise\u{301}rables" and "mis\u{E9}rables""#))
    }

    @Test func modelsAndDictionariesWithoutACollisionStillDecode() async throws {
        struct Book: Decodable, Sendable {
            let count: Int
            enum CodingKeys: String, CodingKey { case count = "mise\u{301}rables" }
        }
        let manager = await Self.manager(answering: Self.body)
        // A coding key finds the member spelled with its own code units.
        #expect(try await manager.request(HalleyRequest<Book>(url: Self.url)).count == 2)
        let plain = await Self.manager(answering: #"{"a": 1, "\u00e9": 2, "K": 3}"#)
        #expect(try await plain.request(HalleyRequest<[String: Int]>(url: Self.url)) == ["a": 1, "\u{E9}": 2, "K": 3])
        // The whole tree keeps both, as `JSONValue` decodes it.
        let tree = try await manager.request(HalleyRequest<JSONValue>(url: Self.url))
        #expect(tree[Self.precomposed] == 4 && tree[Self.decomposed] == 2)
    }
}
