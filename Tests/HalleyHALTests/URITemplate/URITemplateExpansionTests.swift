import HalleyHAL
import Testing

@Suite struct URITemplateExpansionTests {
    private func expand(_ text: String, _ variables: [String: TemplateValue]) throws -> String {
        try URITemplate(text).expand(variables)
    }

    @Test func documentationExampleHolds() throws {
        let template = try URITemplate("/orders{/id}{?page,tags*}")
        #expect(template.variableNames == ["id", "page", "tags"])
        #expect(try template.expand(["id": 42, "tags": ["new", "paid"]]) == "/orders/42?tags=new&tags=paid")
        let variables: [String: TemplateValue] = [
            "id": 42, "tags": ["red", "green"], "filter": ["size": "m", "color": "b"], "page": nil,
        ]
        #expect(
            try URITemplate("{id}{?tags,filter*,page}").expand(variables)
                == "42?tags=red,green&size=m&color=b"
        )
    }

    // MARK: - Prefix modifier

    @Test func prefixOnListIsAnExpansionError() throws {
        let template = try URITemplate("/x{?a,keys:1}")
        let error = try #require(throws: URITemplateError.self) {
            try template.expand(["keys": ["one", "two"]])
        }
        #expect(error.code == .prefixOnCompositeValue)
        #expect(error.offset == 6)
    }

    @Test func prefixOnAssociativeArrayIsAnExpansionError() throws {
        let template = try URITemplate("{+keys:1}")
        let error = try #require(throws: URITemplateError.self) {
            try template.expand(["keys": ["a": "b"]])
        }
        #expect(error.code == .prefixOnCompositeValue)
        #expect(error.offset == 2)
    }

    @Test func prefixOnUndefinedCompositeIsSkippedNotAnError() throws {
        #expect(try expand("a{keys:1}b", ["keys": []]) == "ab")
        #expect(try expand("a{keys:1}b", ["keys": .associativeArray([])]) == "ab")
    }

    @Test func prefixNeverSplitsAGraphemeCluster() throws {
        // The flag is two regional-indicator scalars but one Character.
        #expect(try expand("{var:1}", ["var": "🇫🇷x"]) == "%F0%9F%87%AB%F0%9F%87%B7")
        // "e" + combining acute accent stays together.
        #expect(try expand("{var:2}", ["var": "e\u{301}tude"]) == "e%CC%81t")
        // CRLF is a single Character too.
        #expect(try expand("{var:1}", ["var": "\r\nab"]) == "%0D%0A")
    }

    @Test func prefixLongerThanValueKeepsWholeValue() throws {
        #expect(try expand("{var:30}", ["var": "ünïcode"]) == "%C3%BCn%C3%AFcode")
    }

    @Test func prefixCountsValueCharactersBeforeEncoding() throws {
        // The prefix is taken from the raw value; a triplet cut in half is
        // then just a lone '%' and gets encoded.
        #expect(try expand("{+var:3}", ["var": "%20abc"]) == "%20")
        #expect(try expand("{+var:2}", ["var": "%20abc"]) == "%252")
    }

    // MARK: - Percent-encoding

    @Test func reservedAndFragmentKeepValidTripletsButEncodeLonePercent() throws {
        let variables: [String: TemplateValue] = ["v": "a%20b%2", "w": "100%", "z": "%zz"]
        #expect(try expand("{+v}", variables) == "a%20b%252")
        #expect(try expand("{#v}", variables) == "#a%20b%252")
        #expect(try expand("{+w}", variables) == "100%25")
        #expect(try expand("{+z}", variables) == "%25zz")
    }

    @Test func simpleExpansionEncodesPercentAlways() throws {
        #expect(try expand("{v}", ["v": "a%20b"]) == "a%2520b")
        #expect(try expand("{?v}", ["v": "a%20b"]) == "?v=a%2520b")
    }

    /// Every ASCII character through both allow sets of RFC 6570 Appendix A,
    /// against character classes spelled out independently of the library.
    @Test func everyASCIICharacterIsEncodedPerAllowSet() throws {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let reserved = Set(":/?#[]@!$&'()*+,;=")
        let simple = try URITemplate("{x}")
        let plus = try URITemplate("{+x}")
        for code in UInt8(0)..<128 {
            let character = Character(Unicode.Scalar(code))
            let escaped = "%" + (code < 16 ? "0" : "") + String(code, radix: 16, uppercase: true)
            let variables: [String: TemplateValue] = ["x": .string(String(character))]
            let expectedSimple = unreserved.contains(character) ? String(character) : escaped
            let expectedPlus =
                unreserved.contains(character) || reserved.contains(character)
                ? String(character) : escaped
            #expect(try simple.expand(variables) == expectedSimple, "byte \(code)")
            #expect(try plus.expand(variables) == expectedPlus, "byte \(code)")
        }
    }

    @Test func valuesAreUTF8PercentEncoded() throws {
        #expect(try expand("{v}", ["v": "ü €"]) == "%C3%BC%20%E2%82%AC")
        #expect(try expand("{+v}", ["v": "/a b?c#"]) == "/a%20b?c#")
    }

    @Test func nonASCIIAndDisallowedLiteralCharactersAreEncoded() throws {
        #expect(try expand("/café/{x}", ["x": "ü"]) == "/caf%C3%A9/%C3%BC")
        #expect(try expand("a b\"<>\\^`|", [:]) == "a%20b%22%3C%3E%5C%5E%60%7C")
    }

    @Test func validLiteralTripletsAndReservedCharactersPassThrough() throws {
        #expect(try expand("/a%2Fb%c3%a9'()*!{x}", ["x": "1"]) == "/a%2Fb%c3%a9'()*!1")
    }

    // MARK: - Values

    @Test func dictionaryLiteralOrderIsKeptInExplodeAndJoin() throws {
        let filter: TemplateValue = ["z": "1", "a": "2", "m": "3"]
        #expect(try expand("{?filter*}", ["filter": filter]) == "?z=1&a=2&m=3")
        #expect(try expand("{filter}", ["filter": filter]) == "z,1,a,2,m,3")
        #expect(try expand("{;filter}", ["filter": filter]) == ";filter=z,1,a,2,m,3")
    }

    @Test func literalValuesBecomeStrings() throws {
        let variables: [String: TemplateValue] = [
            "n": 6, "negative": -3, "f": 37.76, "one": 1.0, "yes": true, "no": false,
        ]
        #expect(
            try expand("{?n,negative,f,one,yes,no}", variables)
                == "?n=6&negative=-3&f=37.76&one=1.0&yes=true&no=false"
        )
        #expect(TemplateValue.string("6") == 6)
        #expect(TemplateValue.list(["a", "b"]) == ["a", "b"])
    }

    @Test func interpolatedStringLiteralIsAString() throws {
        let page = 7
        let value: TemplateValue = "p-\(page)"
        #expect(value == .string("p-7"))
    }

    @Test func emptyStringIsDefinedButUndefinedIsSkipped() throws {
        let variables: [String: TemplateValue] = ["empty": "", "undef": nil]
        #expect(try expand("{?empty,undef,missing}", variables) == "?empty=")
        #expect(try expand("{;empty,undef}", variables) == ";empty")
        #expect(try expand("X{.empty}", variables) == "X.")
        #expect(try expand("X{.undef}", variables) == "X")
        #expect(try expand("{/undef,empty}", variables) == "/")
        #expect(try expand("O{empty}X{undef}", variables) == "OX")
        #expect(TemplateValue.undefined.isUndefined)
        #expect(!TemplateValue.string("").isUndefined)
    }

    @Test func emptyCompositesAreSkippedWithTheirSeparators() throws {
        let variables: [String: TemplateValue] = [
            "list": [], "keys": .associativeArray([]), "x": "1",
        ]
        #expect(try expand("{?list,x,keys}", variables) == "?x=1")
        #expect(try expand("{/list*,keys*,x}", variables) == "/1")
        #expect(try expand("{?list}", variables) == "")
    }

    @Test func namedExplodeAppliesIfEmptyPerMember() throws {
        let variables: [String: TemplateValue] = ["list": ["a", ""], "keys": ["k": "", "j": "v"]]
        #expect(try expand("{;list*}", variables) == ";list=a;list")
        #expect(try expand("{?list*}", variables) == "?list=a&list=")
        #expect(try expand("{;keys*}", variables) == ";k;j=v")
        #expect(try expand("{?keys*}", variables) == "?k=&j=v")
        #expect(try expand("{keys*}", variables) == "k=,j=v")
    }

    @Test func explodedKeysAreEncodedLikeValues() throws {
        #expect(try expand("{?keys*}", ["keys": ["a&b": "c d"]]) == "?a%26b=c%20d")
        #expect(try expand("{+keys*}", ["keys": ["a/b": "c/d"]]) == "a/b=c/d")
    }

    @Test func explodeOnStringHasNoEffect() throws {
        #expect(try expand("{x*}", ["x": "a b"]) == "a%20b")
        #expect(try expand("{?x*}", ["x": "a"]) == "?x=a")
    }

    @Test func repeatedExpansionIsDeterministic() throws {
        let template = try URITemplate("{?a*}{&b}")
        let variables: [String: TemplateValue] = ["a": ["x": "1", "y": "2", "z": "3"], "b": ["p", "q"]]
        let first = try template.expand(variables)
        for _ in 0..<20 {
            #expect(try template.expand(variables) == first)
        }
        #expect(first == "?x=1&y=2&z=3&b=p,q")
    }
}
