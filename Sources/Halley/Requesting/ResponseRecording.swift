import Foundation

/// What the request pipeline tells the resource store: declared here, below the state layer,
/// so that the pipeline (the one place every request goes through) keeps the store up to date
/// without depending on it. A class (one reference to copy), since every request checks it.
protocol ResponseRecording: AnyObject, Sendable {
    /// The stored document `request` (a `GET`) may use with no request: stored for its URL and
    /// credentials, and fresh.
    func freshDocument(for request: ResourceRequest) -> HALResource?
    /// Keeps a document fetched with `request` (and the embedded resources it seeds).
    func recordFetched(_ response: ResourceResponse, document: HALResource, for request: ResourceRequest)
    /// Applies the answer to an unsafe request: invalidation, a new state from
    /// `Content-Location`, a failed precondition.
    func recordWrite(
        _ request: ResourceRequest, response: ResourceResponse, invalidation: ResponseInvalidation,
        parsing: HALParsingOptions)
}
