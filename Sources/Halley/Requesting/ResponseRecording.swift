import Foundation
import HalleyHAL
import HalleyTransport

/// What the request pipeline tells the resource store: declared here, below the state layer,
/// so that the pipeline (the one place every request goes through) keeps the store up to date
/// without depending on it. A class (one reference to copy), since every request checks it.
protocol ResponseRecording: AnyObject, Sendable {
    /// The fingerprint of `request`'s credentials: whose state it reads and writes.
    func scope(of request: ResourceRequest) -> [UInt8]
    /// The stored document a `GET` of `url` of `scope` (its credentials and selecting headers)
    /// may use with no request: stored, selected by the request's headers, and fresh.
    func freshDocument(at url: URL, scope: StateScope) -> HALResource?
    /// ``freshDocument(at:scope:)`` for each of `urls` with the scope at the same index, read
    /// under one lock; `nil` where the URL or the scope is.
    func freshDocuments(at urls: [URL?], scopes: [StateScope?]) -> [HALResource?]
    /// Keeps a document fetched from `url` by a request of `scope` (and the embedded resources
    /// it seeds).
    func recordFetched(_ response: ResourceResponse, document: HALResource, at url: URL, scope: StateScope)
    /// Applies the answer to an unsafe request: invalidation, a new state from
    /// `Content-Location`, a failed precondition.
    func recordWrite(
        _ request: ResourceRequest, response: ResourceResponse, invalidation: ResponseInvalidation,
        parsing: HALParsingOptions)
}
