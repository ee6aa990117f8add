import Foundation
import HalleyHAL
import HalleyTransport

/// What an action (`POST`, `PUT`, `PATCH`, `DELETE`) got back: the status, the `Location`,
/// and the body as a HAL resource or any `Decodable`.
///
/// ```swift
/// let created = try await manager.send(.post, to: ordersURL, body: .json(["item": "book"]))
/// print(created)   // 201 Created POST https://api.example.com/orders → Location https://api.example.com/orders/9
/// ```
public struct ActionResponse: Sendable {
    /// The response as received.
    public let response: ResourceResponse
    /// The method the action was sent with; `nil` where the sender did not say.
    let method: RequestMethod?

    /// The response to an action sent with `method`.
    init(response: ResourceResponse, method: RequestMethod?) {
        self.response = response
        self.method = method
    }

    /// The response to an action whose method is not known here: its description leaves the
    /// method out.
    init(response: ResourceResponse) {
        self.init(response: response, method: nil)
    }

    /// The status code.
    public var status: Int { response.status }
    /// The response header fields.
    public var headers: HeaderFields { response.headers }
    /// The body; empty for `204 No Content`.
    public var body: Data { response.body }

    /// The `Location` header resolved against the request URL: where a created resource lives.
    public var location: URL? {
        response.headers["Location"].flatMap { URLResolution.resolve($0, against: response.url) }
    }

    /// The body as a HAL resource, with the links of the `Link` header beside `_links`, or
    /// `nil` when there is no body.
    ///
    /// - Throws: ``HALDocumentError`` when there is a body and it is not a HAL document.
    public func resource(options: HALParsingOptions = HALParsingOptions()) throws(HALDocumentError) -> HALResource? {
        guard !response.body.isEmpty else { return nil }
        return try HALResource(response: response, options: options)
    }

    /// The body decoded as `type`.
    ///
    /// - Throws: ``HalleyError`` with code ``HalleyError/Code/decoding`` naming the JSON path.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws(HalleyError)
        -> Value
    {
        try DecodingFailure.decode(type, from: response.body, decoder: decoder, plan: IncludePlan(), url: response.url)
    }
}

extension ActionResponse: CustomStringConvertible {
    /// One line for a log: the status with its reason phrase, the method and the URL that
    /// answered, and where a created resource lives.
    ///
    /// ```swift
    /// print(created)   // 201 Created POST http://host/orders → Location http://host/orders/9
    /// print(deleted)   // 204 No Content DELETE http://host/orders/9
    /// ```
    ///
    /// The body is left out: read it with ``resource(options:)`` or ``decode(_:decoder:)``.
    public var description: String {
        var text = HTTPReasonPhrase.phrase(for: status).map { "\(status) \($0)" } ?? "\(status)"
        if let method { text += " \(method.rawValue)" }
        text += " \(response.url.absoluteString)"
        if let location { text += " → Location \(location.absoluteString)" }
        return text
    }
}
