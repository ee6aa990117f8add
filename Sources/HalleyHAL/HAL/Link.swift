import Foundation

/// A HAL link object: where a relation points, and what the server says about it.
///
/// All eight properties of the HAL draft (section 5) are read. The object exactly as the
/// server wrote it, including properties HAL does not define, is kept in ``json``.
///
/// ```swift
/// let link = Link(href: "/contacts{?page}", templated: true)
/// link.isTemplated   // true
/// link.templated     // Optional(true); nil when the JSON has no "templated"
/// ```
public struct Link: Sendable, Hashable {
    // Only the object is stored: the properties are read from it (the parser already built
    // it, and every initialiser checks their types). A link is then 16 bytes instead of about
    // 160, which was most of the memory of a document with a few hundred thousand links.

    /// The link object as written, including properties HAL does not define.
    public let json: JSONObject

    /// The target URI, or a URI template when ``isTemplated``.
    public var href: String { json["href"]?.stringValue ?? "" }

    /// The `templated` property as written: `nil` when the link has none (as in the original
    /// Halley). ``isTemplated`` is the answer to "is this a template?".
    public var templated: Bool? { json["templated"]?.boolValue }
    /// A hint of the target's media type.
    public var type: String? { json["type"]?.stringValue }
    /// A URL explaining that the link is deprecated; following it emits a warning event.
    public var deprecation: String? { json["deprecation"]?.stringValue }
    /// A secondary key for picking one of several links with the same relation.
    public var name: String? { json["name"]?.stringValue }
    /// A profile URI (RFC 6906) hinting at the target's semantics.
    public var profile: String? { json["profile"]?.stringValue }
    /// A human-readable label.
    public var title: String? { json["title"]?.stringValue }
    /// The target's language.
    public var hreflang: String? { json["hreflang"]?.stringValue }

    /// Creates a link from its properties.
    public init(
        href: String, templated: Bool? = nil, type: String? = nil, deprecation: String? = nil,
        name: String? = nil, profile: String? = nil, title: String? = nil, hreflang: String? = nil
    ) {
        var json: JSONObject = ["href": .string(href)]
        if let templated { json["templated"] = .bool(templated) }
        for (key, value) in [
            ("type", type), ("deprecation", deprecation), ("name", name),
            ("profile", profile), ("title", title), ("hreflang", hreflang),
        ] {
            if let value { json[key] = .string(value) }
        }
        self.json = json
    }

    /// Whether ``href`` is an RFC 6570 URI template: `true` only when the JSON says `true`.
    public var isTemplated: Bool { templated == true }

    /// Whether the server marked the link deprecated.
    public var isDeprecated: Bool { deprecation != nil }

    /// ``href``, ``isTemplated`` and ``deprecation``, what following the link reads, in one
    /// pass over its object: read one by one, each scanned the object again. The first member
    /// of each name counts, as for the properties.
    ///
    /// perf: one scan per followed link, not three;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    package var followed: (href: String, isTemplated: Bool, deprecation: String?) {
        var href: String?
        var templated: Bool??
        var deprecation: String??
        for position in 0..<json.count {
            let key = json.key(atPosition: position)
            if href == nil, key.hasSameCodeUnits(as: "href") {
                href = json.value(atPosition: position).stringValue ?? ""
            } else if templated == nil, key.hasSameCodeUnits(as: "templated") {
                templated = .some(json.value(atPosition: position).boolValue)
            } else if deprecation == nil, key.hasSameCodeUnits(as: "deprecation") {
                deprecation = .some(json.value(atPosition: position).stringValue)
            }
        }
        return (href ?? "", templated == true, deprecation ?? nil)
    }

    /// Reads a link object, validating every HAL property's type.
    ///
    /// - Parameters:
    ///   - json: The link object.
    ///   - path: JSON path used in errors.
    /// - Throws: ``HALDocumentError`` with ``HALDocumentError/Code/missingHref``,
    ///   ``HALDocumentError/Code/hrefNotString``, ``HALDocumentError/Code/templatedNotBoolean``
    ///   or ``HALDocumentError/Code/linkPropertyNotString``.
    public init(json: JSONObject, path: String = "$") throws(HALDocumentError) {
        try self.init(json: json, lazyPath: { path })
    }

    /// ``init(json:path:)`` with the path built only for an error: documents are parsed far
    /// more often than they are malformed, and a link array of 10,000 would otherwise render
    /// 10,000 paths nobody reads.
    init(json: JSONObject, lazyPath path: () -> String) throws(HALDocumentError) {
        if Self.isWellFormed(json) {
            self.json = json
            return
        }
        switch json["href"] {
        case .string?:
            break
        case nil:
            throw HALDocumentError(code: .missingHref, path: path(), message: "link has no href")
        case let other?:
            throw HALDocumentError(
                code: .hrefNotString, path: JSONPath.appending(.key("href"), to: path()),
                message: "link href is \(other.kindWithArticle), not a string")
        }
        switch json["templated"] {
        case nil, .null?, .bool?: break
        case let other?:
            throw HALDocumentError(
                code: .templatedNotBoolean, path: JSONPath.appending(.key("templated"), to: path()),
                message: "link templated is \(other.kindWithArticle), not true or false")
        }
        // Most links have only `href`: then there is nothing else to check.
        if json.count > 1 {
            for key in ["type", "deprecation", "name", "profile", "title", "hreflang"] {
                switch json[key] {
                case nil, .null?, .string?: continue
                case let other?:
                    throw HALDocumentError(
                        code: .linkPropertyNotString, path: JSONPath.appending(.key(key), to: path()),
                        message: "link \(key) is \(other.kindWithArticle), not a string")
                }
            }
        }
        self.json = json
    }

    /// A link object that ``isWellFormed(_:)`` accepted.
    init(validated json: JSONObject) {
        self.json = json
    }

    /// Whether `json` is a valid link object, read in one pass over its members: the common
    /// case. Any problem is then named by the checks above, in their order.
    static func isWellFormed(_ json: JSONObject) -> Bool {
        var hasHref = false
        for position in 0..<json.count {
            switch (json.key(atPosition: position), json.value(atPosition: position)) {
            case ("href", .string): hasHref = true
            case ("href", _): return false
            case ("templated", .bool), ("templated", .null): continue
            case ("templated", _): return false
            case ("type", let value), ("deprecation", let value), ("name", let value), ("profile", let value),
                ("title", let value), ("hreflang", let value):
                switch value {
                case .string, .null: continue
                default: return false
                }
            default: continue
            }
        }
        return hasHref
    }
}

extension Link: Codable {
    private static let propertyNames: Set<String> = [
        "href", "templated", "type", "deprecation", "name", "profile",
        "title", "hreflang",
    ]

    /// Decodes and validates a link object.
    ///
    /// The HAL properties are read by name and type, so a decoder never has to guess what a
    /// value is; properties HAL does not define are kept in ``json``.
    public init(from decoder: any Decoder) throws {
        // Halley's own decoder hands over the object: read it directly, and leave only a
        // malformed link to the containers, whose errors are `JSONDecoder`'s.
        if let source = decoder as? any JSONValueSource, case .object(let object)? = source.jsonValueForDecoding,
            let link = Link(decodedFrom: object)
        {
            self = link
            return
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        func string(_ key: String) throws -> String? {
            try container.decodeIfPresent(String.self, forKey: AnyCodingKey(key))
        }
        guard let href = try string("href") else {
            throw DecodingError.keyNotFound(
                AnyCodingKey("href"),
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "link has no href"))
        }
        let templated = try container.decodeIfPresent(Bool.self, forKey: AnyCodingKey("templated"))
        let type = try string("type")
        let deprecation = try string("deprecation")
        let name = try string("name")
        let profile = try string("profile")
        let title = try string("title")
        let hreflang = try string("hreflang")
        var json: JSONObject = ["href": .string(href)]
        if let templated { json["templated"] = .bool(templated) }
        for (key, value) in [
            ("type", type), ("deprecation", deprecation), ("name", name), ("profile", profile),
            ("title", title), ("hreflang", hreflang),
        ] {
            if let value { json[key] = .string(value) }
        }
        for key in container.allKeys where !Self.propertyNames.contains(key.stringValue) {
            json[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        self.json = json
    }

    /// Encodes the link object as it was written.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The link ``init(from:)`` decodes from `object`, read without containers: the HAL
    /// properties first and in the same order, those that are `null` left out, then the other
    /// members; `nil` when a HAL property has the wrong type, so that the containers report it.
    init?(decodedFrom object: JSONObject) {
        guard case .string(let href)? = object["href"] else { return nil }
        // Most links have only `href`: that object is already what decoding builds.
        if object.count == 1 {
            self.json = object
            return
        }
        var json: JSONObject = ["href": .string(href)]
        switch object["templated"] {
        case nil, .null?: break
        case .bool(let templated)?: json["templated"] = .bool(templated)
        default: return nil
        }
        for key in Self.stringPropertyNames {
            switch object[key] {
            case nil, .null?: continue
            case .string(let value)?: json[key] = .string(value)
            default: return nil
            }
        }
        for member in object.members where !Self.propertyNames.contains(member.key) {
            json[member.key] = member.value
        }
        self.json = json
    }

    /// The HAL properties whose value is a string, in the order decoding writes them.
    private static let stringPropertyNames = ["type", "deprecation", "name", "profile", "title", "hreflang"]
}

extension Link: CustomStringConvertible {
    /// The href and what the link says about it: `/contacts{?page} (templated, name "all")`.
    public var description: String {
        var notes: [String] = []
        if isTemplated { notes.append("templated") }
        if let name { notes.append("name \"\(name)\"") }
        if let title { notes.append("title \"\(title)\"") }
        if let type { notes.append("type \(type)") }
        if let deprecation { notes.append("deprecated: \(deprecation)") }
        return notes.isEmpty ? href : "\(href) (\(notes.joined(separator: ", ")))"
    }
}
