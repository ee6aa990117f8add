import Foundation
import Halley

/// The least work a traversal of one root linking N items can do, without Halley's engine:
/// parse the root, and for each link find its document in memory, skip a URL seen before,
/// parse the document and keep it, then set the kept items into the root.
///
/// The `scale` scenario times it at the smallest and the largest size, alternating with
/// Halley's calls, so its 100,000 / 1,000 ratio says how much of Halley's own ratio the
/// memory a larger tree needs costs any client that keeps the tree: at 1,000 the documents
/// and the result stay in the caches; at 100,000 (tens of MiB) they do not.
struct ScaleFloor: Sendable {
    /// Every body by its absolute URL, as the in-memory requester holds them.
    let bodies: [String: Data]
    /// The root's absolute URL.
    let root: String
    /// The relation whose links are followed.
    let rel: String

    /// One traversal's worth of work. Returns the number of items kept; the merged document
    /// is dropped on return, as the scenario drops Halley's.
    func call() throws -> Int {
        guard let rootBody = bodies[root] else { throw BenchError("floor: no document at \(root)") }
        guard case .object(var document) = try JSONValue(parsing: rootBody),
            let links = document["_links"]?[rel]?.arrayValue
        else { throw BenchError("floor: \(root) has no \(rel) links") }
        var seen = Set<String>(minimumCapacity: links.count)
        var items: [JSONValue] = []
        items.reserveCapacity(links.count)
        for link in links {
            guard let href = link["href"]?.stringValue else { throw BenchError("floor: a link without href") }
            let url = BenchGraphs.base + href
            guard seen.insert(url).inserted else { continue }
            guard let body = bodies[url] else { throw BenchError("floor: no document at \(url)") }
            items.append(try JSONValue(parsing: body))
        }
        document[rel] = .array(items)
        return items.count
    }
}
