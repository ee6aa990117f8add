import Foundation
import HalleyHAL
import HalleyTransport

/// The header values of a `GET` that may select one representation of a URL over another
/// (RFC 9111, section 4.1): every field but the credentials (which the credential scope keys
/// apart) and the validators and body fields a state's own request adds.
///
/// The resource store keys a state by the values of the fields its response's `Vary` names,
/// and lets two gets share one request only when all of these are equal: before the answer
/// arrives, nobody knows which of them the server will vary on.
struct SelectingHeaders: Sendable, Hashable {
    /// Lowercased names and values, sorted by name; fields of one name joined with `, `.
    let fields: [(name: String, value: String)]

    /// The fields of `request` that may select a representation.
    init(_ request: ResourceRequest) {
        var byName: [String: String] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            guard !Self.neverSelecting.contains(name), !request.credentialScope.isCredential(name) else { continue }
            byName[name] = byName[name].map { $0 + ", " + field.value } ?? field.value
        }
        fields = byName.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// No fields: a request with no header that could select a representation.
    static let none = SelectingHeaders(fields: [])

    private init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// Added by the state layer or the body, never chosen by the caller to select a variant.
    private static let neverSelecting: Set<String> = [
        "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "content-type", "content-length",
    ]

    /// The values of `names` (lowercased, sorted): the secondary key of a response that said
    /// `Vary: names`; empty for none. A credential name reads as absent: the scope keys it.
    func variant(for names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        var text = ""
        for name in names {
            text += name
            if let field = fields.first(where: { $0.name == name }) {
                text += "=" + field.value
            }
            text += "\n"
        }
        return text
    }

    /// Every field, as one key: gets whose keys differ never share a request.
    var all: String { variant(for: fields.map(\.name)) }

    static func == (lhs: SelectingHeaders, rhs: SelectingHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }

    /// The lowercased, sorted, distinct names of `headers`' `Vary` fields (`*` included).
    static func varyNames(_ headers: HeaderFields) -> [String] {
        var names: Set<String> = []
        for field in headers where field.name.lowercased() == "vary" {
            for name in field.value.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if !trimmed.isEmpty { names.insert(trimmed) }
            }
        }
        return names.sorted()
    }
}

/// Whose state a request reads: the fingerprint of its credentials and the header values that
/// may select a representation.
struct StateScope: Sendable, Hashable {
    /// ``CredentialFingerprint/credentials(of:)`` of the request.
    let credentials: [UInt8]
    /// The request's other header values.
    let headers: SelectingHeaders
}
