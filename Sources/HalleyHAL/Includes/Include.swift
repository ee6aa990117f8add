import Foundation

/// One include: a path plus the template variables and query items for the link at its end.
///
/// A plain string is an include with no variables:
///
/// ```swift
/// let includes: [Include] = [
///     "[contacts]",
///     Include("[contacts].website", variables: ["size": "small"]),
///     Include("ex:orders", queryItems: [URLQueryItem(name: "sort", value: "date")]),
/// ]
/// ```
public struct Include: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The include path, in the grammar of ``IncludePath``.
    public var path: String
    /// Variables for expanding the templated link at the end of the path; they win over
    /// per-call and global variables.
    public var variables: [String: TemplateValue]
    /// Query items appended to the URL of the link at the end of the path.
    public var queryItems: [URLQueryItem]

    /// Creates an include.
    public init(_ path: String, variables: [String: TemplateValue] = [:], queryItems: [URLQueryItem] = []) {
        self.path = path
        self.variables = variables
        self.queryItems = queryItems
    }

    /// Creates an include with no variables.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The path.
    public var description: String { path }
}
