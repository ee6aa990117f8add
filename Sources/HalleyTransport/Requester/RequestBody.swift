import Foundation
import HalleyHAL

/// What an action sends.
///
/// ```swift
/// try await manager.send(.post, to: ordersURL, body: .json(["item": "book", "quantity": 2]))
/// try await manager.send(.put, to: url, body: try .encodable(order))
/// ```
public enum RequestBody: Sendable, Hashable {
    /// No body.
    case none
    /// Text, sent as `text/plain; charset=utf-8`.
    case text(String)
    /// Bytes with their media type.
    case data(Data, contentType: String)
    /// A JSON value, sent as `application/json`.
    case json(JSONValue)

    /// Any `Encodable`, encoded now with `encoder` and sent as `application/json`.
    ///
    /// - Throws: The encoder's error.
    public static func encodable<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) throws
        -> RequestBody
    {
        .data(try encoder.encode(value), contentType: "application/json")
    }

    /// The bytes and media type to send.
    package var encoded: (data: Data, contentType: String)? {
        switch self {
        case .none: return nil
        case .text(let text): return (Data(text.utf8), "text/plain; charset=utf-8")
        case .data(let data, let contentType): return (data, contentType)
        case .json(let value): return (value.serialized(), "application/json")
        }
    }
}
