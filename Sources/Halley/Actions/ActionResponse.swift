import Foundation

/// What an action (`POST`, `PUT`, `PATCH`, `DELETE`) got back: the status, the `Location`,
/// and the body as a HAL resource or any `Decodable`.
public struct ActionResponse: Sendable {
    /// The response as received.
    public let response: ResourceResponse

    /// The status code.
    public var status: Int { response.status }
    /// The response header fields.
    public var headers: HTTPHeaders { response.headers }
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
