import Foundation
import HalleyHAL

/// An RFC 9457 problem details object: what an API says went wrong, in a body of type
/// `application/problem+json`.
///
/// ```swift
/// catch let error as HalleyError {
///     if let problem = error.httpError?.problem {
///         problem.title         // "Out of stock"
///         problem.detail        // "Item 42 is no longer available"
///         problem["balance"]    // an extension member, as JSON
///     }
/// }
/// ```
///
/// Members of the wrong type are ignored, as RFC 9457 section 3.1 asks: a `status` that is a
/// string reads `nil`, and is still available through the subscript.
public struct ProblemDetails: Sendable, Hashable, CustomStringConvertible {
    /// Identifies the problem type; `about:blank` when the object has none (RFC 9457, 3.1.1).
    public let type: String
    /// A short summary of the problem type.
    public let title: String?
    /// The HTTP status the server generated for this occurrence.
    public let status: Int?
    /// An explanation specific to this occurrence.
    public let detail: String?
    /// Identifies this occurrence.
    public let instance: String?
    /// Every other member, as written.
    public let extensions: JSONObject
    /// The object as written.
    public let json: JSONObject

    private static let standardMembers: Set<String> = ["type", "title", "status", "detail", "instance"]

    /// Reads a problem details object.
    public init(_ json: JSONObject) {
        self.json = json
        type = json["type"]?.stringValue ?? "about:blank"
        title = json["title"]?.stringValue
        status = json["status"]?.intValue
        detail = json["detail"]?.stringValue
        instance = json["instance"]?.stringValue
        var extensions = JSONObject()
        for (key, value) in json.members where !Self.standardMembers.contains(key) { extensions[key] = value }
        self.extensions = extensions
    }

    /// A member by name, standard or extension, as written.
    public subscript(member: String) -> JSONValue? { json[member] }

    /// `title: detail`, or whichever of the two there is.
    public var description: String {
        [title, detail].compactMap { $0 }.joined(separator: ": ")
    }
}
