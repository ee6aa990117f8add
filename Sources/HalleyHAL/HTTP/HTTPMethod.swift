/// An HTTP method: an open, string-backed type with the common methods named.
public struct HTTPMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token, e.g. `GET`.
    public let rawValue: String
    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a method from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The method token.
    public var description: String { rawValue }

    /// `GET` (RFC 9110, 9.3.1).
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD` (RFC 9110, 9.3.2).
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST` (RFC 9110, 9.3.3).
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT` (RFC 9110, 9.3.4).
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `DELETE` (RFC 9110, 9.3.5).
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `PATCH` (RFC 5789).
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `OPTIONS` (RFC 9110, 9.3.7).
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}
