import Foundation
import HalleyHAL

/// The outcome of a traversal that tolerates failed relationships.
public struct TraversalResult: Sendable {
    /// The merged document: the root with every relationship that succeeded.
    public let document: JSONValue
    /// One error per relationship (or to-many item) that failed, each naming its include
    /// path and URL. Failed to-one relationships are absent from ``document``; failed
    /// to-many items are left out of their array.
    public let failures: [HalleyError]
    /// How many requests the call sent.
    public let requestCount: Int
}
