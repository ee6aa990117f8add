import HalleyHAL
import Testing

/// `RequestMethod` and `HeaderFields` are the HTTP values' names; `HTTPMethod` and
/// `HTTPHeaders`, the names Alamofire and SwiftNIO also declare, stay as deprecated aliases.
@Suite struct HTTPValueNamesTests {
    @Test func theNewNamesSpellTheValues() {
        let method: RequestMethod = "PATCH"
        #expect(method == .patch)
        var headers: HeaderFields = ["Accept": "application/hal+json"]
        headers["accept"] = "application/json"
        #expect(headers["ACCEPT"] == "application/json")
        #expect(headers.fields.count == 1)
    }
}

/// The former names still compile and are the same types: each function below type-checks
/// only if its alias names the new type. Using a deprecated name warns, and the build treats
/// warnings as errors, except inside a declaration itself deprecated; so this enum is, and
/// nothing calls it: that it compiles is the proof.
@available(*, deprecated, message: "spells the deprecated names on purpose, to prove they still compile")
enum FormerHTTPValueNames {
    static func current(_ former: HTTPMethod) -> RequestMethod { former }
    static func former(_ current: RequestMethod) -> HTTPMethod { current }
    static func current(_ former: HTTPHeaders) -> HeaderFields { former }
    static func former(_ current: HeaderFields) -> HTTPHeaders { current }
    static let get: HTTPMethod = .get
    static let accept: HTTPHeaders = ["Accept": "application/hal+json"]
}
