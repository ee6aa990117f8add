import Foundation
import HalleyHAL

/// The items a collection page links to (`_links.item`, nothing embedded), fetched one at a
/// time when a pager asks for them rather than all with the page.
///
/// Each item is a call of its own, as each page is: its own ``CallOptions/maxRequests`` and
/// deadline, so a page of 1,000 links is read item by item with default settings, and a
/// consumer that stops after five items has sent the page and about five item requests. The
/// item calls of one page share two things, so reading them lazily costs no more than one
/// call for the whole page did: the documents fetched (a resource that fifty items include
/// is requested once) and the concurrency limit (``ItemWindow`` runs several item calls at
/// once, and their requests together stay within it).
struct LinkedItems: Sendable {
    let manager: ResourceManager
    let links: [Link]
    /// Resolves the links against the page they are on.
    let targets: RelationResolver.Targets
    /// The include plan merged into every item.
    let plan: IncludePlan
    let options: CallOptions
    /// The page call's variables, evaluated once for that call.
    let variables: [String: TemplateValue]
    /// The page call's trust root: credentials go where they went when the page call
    /// fetched its items itself.
    let trustRoot: URL
    /// How many item calls run at once: the page call's concurrency limit.
    let width: Int
    private let documents = FetchTable(maxRequests: .max)
    private let semaphore: AsyncSemaphore

    /// The items `links` lead to, on a page loaded by `call`.
    init(call: Call, links: [Link], targets: RelationResolver.Targets, plan: IncludePlan) {
        manager = call.manager
        self.links = links
        self.targets = targets
        self.plan = plan
        options = call.options
        variables = call.variables
        trustRoot = call.trustRoot
        width = max(1, call.pipeline.maxConcurrency)
        semaphore = AsyncSemaphore(permits: width)
    }

    var count: Int { links.count }

    /// Item `index` with the plan merged in, and the URL it came from (for decoding errors).
    func fetch(_ index: Int) async throws -> (object: JSONObject, url: URL) {
        let url = try targets.url(of: links[index], includePath: nil)
        let call = try Call(
            manager, at: .url(url), options: options, variables: variables, trusting: trustRoot, semaphore: semaphore)
        let nodes = plan.children
        return try await call.run(plan: plan, sharing: documents) { context, document in
            // A leaf needs nothing merged, as in a to-many fan-out.
            let object =
                nodes.isEmpty ? document.json : try await Traverser(context: context).merged(document, nodes: nodes)
            return (object, document.baseURL ?? url)
        }
    }
}

/// Delivers some of a page's ``LinkedItems`` in order, fetching at most ``LinkedItems/width``
/// of them at once: the one the consumer waits for and those right after it.
///
/// A consumer that stops early (`prefix`, `first(where:)`, `break`) leaves at most
/// `width - 1` fetches behind it, and they are cancelled when the window is dropped or
/// ``cancel()`` is called: nothing past them is ever requested.
final class ItemWindow: Sendable {
    typealias Fetch = Task<(object: JSONObject, url: URL), any Error>

    private struct State {
        /// The offset in ``positions`` delivered next.
        var next = 0
        /// How many of ``positions`` have a fetch started.
        var started = 0
        /// The fetches started and not yet handed out, by offset.
        var fetches: [Int: Fetch] = [:]
        var cancelled = false
    }

    let items: LinkedItems
    private let positions: Range<Int>
    private let state = LockedValue(State())

    /// A window over the items at `positions` (all of them by default).
    init(_ items: LinkedItems, positions: Range<Int>? = nil) {
        self.items = items
        self.positions = positions ?? 0..<items.count
    }

    /// The next item and its URL, or `nil` when every position has been delivered.
    ///
    /// - Throws: The item's fetch error; `CancellationError` after ``cancel()``.
    func next() async throws -> (object: JSONObject, url: URL)? {
        let items = self.items
        let positions = self.positions
        let fetch = try state.withLock { state -> Fetch? in
            if state.cancelled { throw CancellationError() }
            guard state.next < positions.count else { return nil }
            // The room left first: `next + width` overflows for a limit of `Int.max` ("none").
            let end = state.next + min(items.width, positions.count - state.next)
            while state.started < end {
                let index = positions.lowerBound + state.started
                state.fetches[state.started] = Task { try await items.fetch(index) }
                state.started += 1
            }
            defer { state.next += 1 }
            return state.fetches.removeValue(forKey: state.next)
        }
        guard let fetch else { return nil }
        return try await withTaskCancellationHandler {
            try await fetch.value
        } onCancel: {
            fetch.cancel()
        }
    }

    /// Cancels the fetches started ahead of the consumer.
    func cancel() {
        let fetches = state.withLock { state -> [Fetch] in
            state.cancelled = true
            defer { state.fetches = [:] }
            return Array(state.fetches.values)
        }
        for fetch in fetches { fetch.cancel() }
    }

    deinit { cancel() }
}
