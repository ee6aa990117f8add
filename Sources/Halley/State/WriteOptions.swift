import Foundation

/// How a write through a ``ResourceHandle`` is sent.
///
/// ```swift
/// let response = try await order.put(.json(["status": "paid"]), options: WriteOptions(ifMatch: true))
/// ```
public struct WriteOptions: Sendable, Hashable {
    /// Sends the stored state's `ETag` as `If-Match`, so the write fails with `412` (and the
    /// state becomes stale) when someone changed the resource since it was read.
    public var ifMatch: Bool
    /// Sends `Prefer: return=representation` (RFC 7240): a server that honours it answers with
    /// the new state and its `Content-Location`, which is then stored with no refetch.
    public var preferRepresentation: Bool

    /// Options for one write; neither header is sent by default.
    public init(ifMatch: Bool = false, preferRepresentation: Bool = false) {
        self.ifMatch = ifMatch
        self.preferRepresentation = preferRepresentation
    }
}
