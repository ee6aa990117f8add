/// The parsed form of a template: what expansion walks instead of the text,
/// so that expanding never re-scans or re-validates the template.
///
/// The layout is flat on purpose. Parts and varspecs only hold ranges into
/// one shared byte array, so walking them during expansion copies plain
/// values and costs no reference counting; the whole program sits behind a
/// single reference, so copying a ``URITemplate`` stays cheap too.
final class URITemplateProgram: Sendable {
    /// Pre-encoded literal text and variable-name bytes, back to back.
    let bytes: [UInt8]

    /// The template's literal chunks and expressions, in order.
    let parts: [URITemplatePart]

    /// Every expression's varspecs, in order; expressions refer to ranges.
    let varSpecs: [URITemplateVarSpec]

    /// A starting capacity for the output buffer: the literal text plus a
    /// typical short value per varspec, so common expansions never regrow.
    let estimatedExpansionCount: Int

    init(bytes: [UInt8], parts: [URITemplatePart], varSpecs: [URITemplateVarSpec], literalByteCount: Int) {
        self.bytes = bytes
        self.parts = parts
        self.varSpecs = varSpecs
        self.estimatedExpansionCount = literalByteCount + 16 * varSpecs.count
    }
}

/// One piece of a parsed template.
enum URITemplatePart: Sendable {
    /// Literal text, already percent-encoded per RFC 6570 section 3.1; the
    /// range is into ``URITemplateProgram/bytes``.
    case literal(Range<Int>)

    /// One `{...}` expression (RFC 6570 section 2.2): its operator and the
    /// range of its varspecs in ``URITemplateProgram/varSpecs``.
    case expression(URITemplateOperator, Range<Int>)
}

/// One variable reference inside an expression (RFC 6570 section 2.3).
struct URITemplateVarSpec: Sendable {
    /// The name as written (percent-encoded triplets are not decoded), used
    /// to look the value up.
    let name: String

    /// Where the name's bytes sit in ``URITemplateProgram/bytes``, ready for
    /// named operators that copy the name into the output; the grammar only
    /// admits URI-safe bytes in names, so no encoding is needed.
    let nameBytes: Range<Int>

    let modifier: URITemplateModifier

    /// Where the name starts in the template, as a UTF-8 offset, for the one
    /// error that can only be detected during expansion.
    let utf8Offset: Int
}

/// A varspec's value modifier (RFC 6570 section 2.4).
enum URITemplateModifier: Sendable, Equatable {
    case none
    /// `:N`, keep at most N characters of a string value (section 2.4.1).
    case prefix(Int)
    /// `*`, expand each member of a composite value (section 2.4.2).
    case explode
}

/// The expression operators and their expansion behaviour, as tabulated in
/// RFC 6570 Appendix A.
enum URITemplateOperator: Sendable {
    /// No operator: simple string expansion (section 3.2.2).
    case simple
    /// `+`: reserved expansion (section 3.2.3).
    case reserved
    /// `#`: fragment expansion (section 3.2.4).
    case fragment
    /// `.`: label expansion (section 3.2.5).
    case label
    /// `/`: path segment expansion (section 3.2.6).
    case pathSegment
    /// `;`: path-style parameter expansion (section 3.2.7).
    case pathParameter
    /// `?`: form-style query expansion (section 3.2.8).
    case query
    /// `&`: form-style query continuation (section 3.2.9).
    case queryContinuation

    init?(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "+"): self = .reserved
        case UInt8(ascii: "#"): self = .fragment
        case UInt8(ascii: "."): self = .label
        case UInt8(ascii: "/"): self = .pathSegment
        case UInt8(ascii: ";"): self = .pathParameter
        case UInt8(ascii: "?"): self = .query
        case UInt8(ascii: "&"): self = .queryContinuation
        default: return nil
        }
    }

    /// Appendix A `first`: emitted before the first defined value, if any.
    var first: UInt8? {
        switch self {
        case .simple, .reserved: return nil
        case .fragment: return UInt8(ascii: "#")
        case .label: return UInt8(ascii: ".")
        case .pathSegment: return UInt8(ascii: "/")
        case .pathParameter: return UInt8(ascii: ";")
        case .query: return UInt8(ascii: "?")
        case .queryContinuation: return UInt8(ascii: "&")
        }
    }

    /// Appendix A `sep`: emitted between defined values.
    var separator: UInt8 {
        switch self {
        case .simple, .reserved, .fragment: return UInt8(ascii: ",")
        case .label: return UInt8(ascii: ".")
        case .pathSegment: return UInt8(ascii: "/")
        case .pathParameter: return UInt8(ascii: ";")
        case .query, .queryContinuation: return UInt8(ascii: "&")
        }
    }

    /// Appendix A `named`: values are written as `name=value`.
    var isNamed: Bool {
        switch self {
        case .pathParameter, .query, .queryContinuation: return true
        default: return false
        }
    }

    /// Appendix A `ifemp`: what follows the name of an empty value; `;`
    /// writes the bare name, `?` and `&` keep the `=`.
    var ifEmpty: UInt8? {
        switch self {
        case .query, .queryContinuation: return UInt8(ascii: "=")
        default: return nil
        }
    }

    /// Appendix A `allow`: whether reserved characters and `%XX` triplets in
    /// values pass through (U+R) instead of being encoded (U).
    var allowsReserved: Bool {
        switch self {
        case .reserved, .fragment: return true
        default: return false
        }
    }
}
