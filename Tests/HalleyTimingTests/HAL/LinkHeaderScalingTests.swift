import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// `Link` header fields far beyond any real one, read in one pass: checks of time, hence this
/// target (LinkHeaderTests holds what they mean).
@Suite struct LinkHeaderScalingTests {
    /// The resource a response with one `Link` field `link` and `body` makes.
    func resource(link: String, body: JSONValue = ["name": "chapters"]) throws -> HALResource {
        try HALResource(
            response: ResourceResponse(
                headers: ["Link": link], url: URL(string: "https://api.example.com/books/1/chapters?page=2")!,
                body: body.serialized()), options: HALParsingOptions())
    }

    /// A megabyte of garbage of each kind is read in one pass: at most a second and a half
    /// in a debug build (80,000 valid links the slowest), where a reader that went back over
    /// the field would take minutes. The bound leaves room for a loaded machine.
    @Test(arguments: [
        "<", "\"", ",", ";", "<a>;", "<a>; x=\"\\", "<a>; rel=x;", "\u{1}", "a", "<a> <", "<a>; rel=\"", "\\",
        "</a>; rel=x, ", "<a>, ", "<a>; t=\"\u{1}\",",
    ])
    func megabyteOfGarbageIsReadInOnePass(unit: String) throws {
        let field = String(repeating: unit, count: 1_048_576 / unit.utf8.count)
        let clock = ContinuousClock()
        let start = clock.now
        let page = try resource(link: field)
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(10), "\(unit.debugDescription): \(elapsed)")
        #expect(page.problems.count <= LinkHeader.problemLimit + 1)
    }

    /// Many parameters on one link, and many relations over a document of many: hashed, so
    /// the cost is their sum, not their product.
    @Test func manyParametersAndRelationsStayLinear() throws {
        let parameters = (0..<40_000).map { "; p\($0)=\"v\"" }.joined()
        let rels = (0..<40_000).map { "r\($0)" }.joined(separator: " ")
        var links: JSONObject = [:]
        for index in 0..<5_000 { links["d\(index)"] = ["href": .string("/d/\(index)")] }
        links["r39999"] = ["href": "/x"]
        let clock = ContinuousClock()
        let start = clock.now
        let page = try resource(
            link: "</x>; rel=\"\(rels)\"\(parameters)", body: ["_links": .object(links)])
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(10), "\(elapsed)")
        #expect(page.links.link(for: "r0")?.json.count == 40_001)
        #expect(page.links.relation("r39999")?.links.count == 1, "_links has it already")
        #expect(page.links.rels.count == 5_000 + 40_000)
        #expect(page.problems.isEmpty)
    }
}
