/// An HTTP method: an open, string-backed type with the common methods named.
///
/// Named so that an app importing Alamofire or SwiftNIO (`HTTPMethod`) or swift-http-types
/// (`HTTPRequest.Method`) beside Halley can write it unqualified.
public struct RequestMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token, e.g. `GET`.
    public let rawValue: String
    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a method from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The method token.
    public var description: String { rawValue }

    /// `GET` (RFC 9110, 9.3.1).
    public static let get = RequestMethod(rawValue: "GET")
    /// `HEAD` (RFC 9110, 9.3.2).
    public static let head = RequestMethod(rawValue: "HEAD")
    /// `POST` (RFC 9110, 9.3.3).
    public static let post = RequestMethod(rawValue: "POST")
    /// `PUT` (RFC 9110, 9.3.4).
    public static let put = RequestMethod(rawValue: "PUT")
    /// `DELETE` (RFC 9110, 9.3.5).
    public static let delete = RequestMethod(rawValue: "DELETE")
    /// `PATCH` (RFC 5789).
    public static let patch = RequestMethod(rawValue: "PATCH")
    /// `OPTIONS` (RFC 9110, 9.3.7).
    public static let options = RequestMethod(rawValue: "OPTIONS")
}

/// The former name of ``RequestMethod``, which Alamofire and SwiftNIO also declare: in an app
/// that imports one of them, `HTTPMethod` is ambiguous; `RequestMethod` never is.
@available(*, deprecated, renamed: "RequestMethod")
public typealias HTTPMethod = RequestMethod
