import Foundation
import HalleyHAL

/// What one traversal shares across its tasks: the call's request pipeline and relation
/// resolver, the fetch table, and the failures so far. Request policy lives in
/// ``RequestPipeline``; this is traversal state only.
final class TraversalContext: Sendable {
    let pipeline: RequestPipeline
    let resolver: RelationResolver
    /// Where the call started.
    let rootURL: URL
    let collectsFailures: Bool
    /// Whether an included relation a resource lacks fails (``CallOptions/strictIncludes``).
    let strictIncludes: Bool
    let table: FetchTable
    /// Documents shared with sibling calls (the item fetches of one collection page), so a
    /// resource several items include is requested once, as when one call fetched them all;
    /// ``table`` still counts each URL this call needs against its own ``CallOptions/maxRequests``.
    private let shared: FetchTable?
    let maxItemsPerPage: Int
    /// How many elements of one fan-out of branches are in progress at once: well above the
    /// concurrency limit, so the window never holds requests back while workers are busy in
    /// their branches' children.
    let fanOutWindow: Int
    /// The same for a fan-out of leaves, one request each: as many as the concurrency limit,
    /// so each request finds a free slot instead of queueing for one (a suspension, a
    /// continuation and a cancellation handler per request), and is built only when it can
    /// be sent. When a request may
    /// wait without a slot (``RequestPipeline/waitsOutsideTheLimit``), the wide window, so
    /// that other workers use that slot meanwhile. (A worker whose URL another is fetching
    /// waits for that one request without a slot, as it would with the wide window.)
    ///
    /// perf: no request of a fan-out of leaves queues for a slot;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    let leafWindow: Int
    private let failures = LockedValue<[HalleyError]>([])

    init(call: Call, collectsFailures: Bool, sharing shared: FetchTable? = nil) {
        let options = call.options
        pipeline = call.pipeline
        rootURL = call.rootURL
        resolver = call.resolver
        maxItemsPerPage = options.maxItemsPerPage
        // Four times the limit, short of overflowing: `Int.max` is how a caller says "no limit".
        fanOutWindow = max(256, min(pipeline.maxConcurrency, Int.max / 4) * 4)
        leafWindow = pipeline.waitsOutsideTheLimit ? fanOutWindow : pipeline.maxConcurrency
        self.collectsFailures = collectsFailures
        strictIncludes = options.strictIncludes
        table = FetchTable(maxRequests: options.maxRequests)
        self.shared = shared
    }

    var collectedFailures: [HalleyError] { failures.get() }

    func record(_ failure: HalleyError) {
        failures.withLock { $0.append(failure) }
    }

    func emit(_ event: HalleyEvent) {
        pipeline.emit(event)
    }

    /// Runs `body` within the call's deadline (see ``RequestPipeline/withinDeadline(_:)``).
    func withinDeadline<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await pipeline.withinDeadline(body)
    }

    // MARK: Documents

    /// Whether ``storedDocuments(at:)`` may answer: a resource store read with no request
    /// built, and no table shared with sibling calls.
    var readsStoreDirectly: Bool { shared == nil && pipeline.readsStoreDirectly }

    /// What ``document(at:includePath:)`` would answer for each of `urls` from fresh stored
    /// state, found under one lock of the store and one of the table (a relation over fresh
    /// state needs no task, frame or lock per resource); `nil` where the usual way must go.
    func storedDocuments(at urls: [URL?]) -> [HALResource?] {
        let stored = pipeline.storedDocuments(at: urls)
        guard stored.contains(where: { $0 != nil }) else { return stored }
        let adopted = table.adopt(urls.map { $0?.absoluteString }, documents: stored)
        for (url, adopted) in zip(urls, adopted) {
            if let url, adopted?.isNew == true { emit(.stateUsed(url: url)) }
        }
        return adopted.map { $0?.document }
    }

    /// The document at `url`, requested at most once per call.
    ///
    /// A failure is reported at the caller's own include path, also when another branch
    /// sent the request: in partial mode each place that needed the document lists it.
    func document(at url: URL, includePath: String?) async throws -> HALResource {
        try await inlinedDocument(at: LazyURL(url), includePath: includePath)
    }

    /// ``document(at:includePath:)`` for a URL as the engine carries it.
    func document(at url: LazyURL, includePath: String?) async throws -> HALResource {
        try await inlinedDocument(at: url, includePath: includePath)
    }

    /// ``document(at:includePath:)`` for the fan-out over a relation's links; the other
    /// callers share the out-of-line copy.
    ///
    /// perf: inlined, one async frame fewer per link;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    func inlinedDocument(at url: LazyURL, includePath: String?) async throws -> HALResource {
        let key = url.text
        // Claimed without a suspension point: only a URL another branch is fetching waits.
        // The slot this branch owns, when the claim gave it one (a join that hands the fetch on
        // does not): finishing there hashes the URL no second time.
        var slot: Int?
        switch try claim(key, url: url, includePath: includePath) {
        case .finished(let document):
            return document
        case .inFlight:
            if let document = try await Self.join(table, key: key, url: url, includePath: includePath) {
                return document
            }
        case .owned(let owned):
            slot = owned
        }
        let result: Result<HALResource, any Error>
        do {
            if let shared {
                result = .success(try await sharedDocument(at: url, key: key, in: shared, includePath: includePath))
            } else {
                result = .success(try await pipeline.document(at: url, includePath: includePath))
            }
        } catch {
            result = .failure(error)
        }
        if let slot {
            table.finish(key, slot: slot, with: result)
        } else {
            table.finish(key, with: result)
        }
        return try result.get()
    }

    /// ``FetchTable/claim(_:url:includePath:)`` on ``table``, a failure at the caller's include
    /// path. Out of line: the cast of the error needs a run-time-sized buffer, which the async
    /// caller would allocate on entry for every document.
    @inline(never)
    private func claim(_ key: String, url: LazyURL, includePath: String?) throws -> FetchTable.Claim {
        do {
            return try table.claim(key, url: url, includePath: includePath)
        } catch let error as HalleyError where error.includePath != includePath {
            throw error.at(includePath: includePath)
        }
    }

    /// The document `table` holds or is fetching for `key`, or `nil` when this caller now owns
    /// the fetch. An owner cancelled mid-fetch hands the fetch on (unless this task is
    /// cancelled too); a failure reaches this caller at its own include path.
    private static func join(_ table: FetchTable, key: String, url: LazyURL, includePath: String?)
        async throws -> HALResource?
    {
        while true {
            do {
                return try await table.join(key, url: url, includePath: includePath)
            } catch is FetchTable.OwnerCancelled {
                try Task.checkCancellation()
            } catch let error as HalleyError where error.includePath != includePath {
                throw error.at(includePath: includePath)
            }
        }
    }

    /// The document at `url` from the table shared with sibling calls: a sibling's answer
    /// (or the request it has in flight), else requested here and handed to the siblings.
    private func sharedDocument(at url: LazyURL, key: String, in shared: FetchTable, includePath: String?)
        async throws -> HALResource
    {
        if let document = try await Self.join(shared, key: key, url: url, includePath: includePath) { return document }
        let result: Result<HALResource, any Error>
        do {
            result = .success(try await pipeline.document(at: url, includePath: includePath))
        } catch {
            result = .failure(error)
        }
        shared.finish(key, with: result)
        return try result.get()
    }
}
