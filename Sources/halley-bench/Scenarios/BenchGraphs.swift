import Foundation
import Halley

/// Builds the HAL documents the scenarios traverse and registers them on an in-memory
/// requester.
enum BenchGraphs {
    static let base = "https://bench.example"

    /// The absolute URL of a path under ``base``.
    static func url(_ path: String) throws(BenchError) -> URL {
        guard let url = URL(string: base + path) else { throw BenchError("not a URL: \(base + path)") }
        return url
    }

    /// A link object.
    static func link(_ href: String) -> JSONValue {
        ["href": .string(href)]
    }

    /// A resource with a `self` link, further links, attributes and embedded resources.
    static func resource(
        _ path: String, links: [(String, JSONValue)] = [], state: [(String, JSONValue)] = [],
        embedded: [(String, JSONValue)] = []
    ) -> JSONValue {
        var linkObject: JSONObject = ["self": link(path)]
        for (rel, value) in links { linkObject[rel] = value }
        var object: JSONObject = ["_links": .object(linkObject)]
        for (key, value) in state { object[key] = value }
        if !embedded.isEmpty { object["_embedded"] = .object(JSONObject(embedded)) }
        return .object(object)
    }

    // MARK: Trees

    /// A complete tree: `/n` links its children `/n-0`, `/n-1`, ... as an array under
    /// `children`, down to `depth` levels below the root.
    struct Tree: Sendable {
        let depth: Int
        let fanOut: Int
        /// Every path, depth first, parents before children.
        let paths: [String]
        /// Each path's children, in link order.
        let children: [String: [String]]

        static let rootPath = "/n"

        init(depth: Int, fanOut: Int) {
            self.depth = depth
            self.fanOut = fanOut
            var paths: [String] = []
            var children: [String: [String]] = [:]
            func add(_ path: String, level: Int) {
                paths.append(path)
                let kids = level < depth ? (0..<fanOut).map { "\(path)-\($0)" } : []
                children[path] = kids
                for kid in kids { add(kid, level: level + 1) }
            }
            add(Self.rootPath, level: 0)
            self.paths = paths
            self.children = children
        }

        /// The include that follows every level: `[children].[children]...`.
        var include: Include {
            Include(Array(repeating: "[children]", count: depth).joined(separator: "."))
        }

        /// The largest sum of latencies along a root-to-leaf path.
        func longestPath(_ latency: [String: Duration]) -> Duration {
            func longest(_ path: String) -> Duration {
                let own = latency[path] ?? .zero
                let below = (children[path] ?? []).map(longest).max() ?? .zero
                return own + below
            }
            return longest(Self.rootPath)
        }

        /// Registers every node; `latency` gives a node's own latency (`nil`: the requester's).
        func register(on requester: InMemoryRequester, latency: [String: Duration] = [:]) async {
            for path in paths {
                let kids = children[path] ?? []
                let level = path.split(separator: "-").count - 1
                let document = resource(
                    path, links: [("children", .array(kids.map { link($0) }))],
                    state: [("level", .int(level)), ("name", .string("node \(path)"))])
                await requester.register(base + path, json: document, latency: latency[path])
            }
        }
    }

    // MARK: Link lists

    /// A root at `rootPath` linking `count` item resources as an array under `rel`; item `i`
    /// is `itemPath(i)`. Several indexes may map to the same path (for deduplication).
    ///
    /// - Returns: Every registered body by its absolute URL, the same `Data` the requester
    ///   holds (for work measured without Halley, such as ``ScaleFloor``).
    @discardableResult
    static func registerList(
        on requester: InMemoryRequester, rootPath: String, rel: String, count: Int,
        rootLatency: Duration? = nil, itemPath: (Int) -> String
    ) async -> [String: Data] {
        let links = (0..<count).map { link(itemPath($0)) }
        let rootBody = resource(rootPath, links: [(rel, .array(links))], state: [("count", .int(count))]).serialized()
        await requester.register(base + rootPath, InMemoryRequester.Route(body: rootBody, latency: rootLatency))
        var bodies = [base + rootPath: rootBody]
        for index in 0..<count {
            let url = base + itemPath(index)
            guard bodies[url] == nil else { continue }
            let body = item(itemPath(index), index: index).serialized()
            bodies[url] = body
            await requester.register(url, InMemoryRequester.Route(body: body))
        }
        return bodies
    }

    /// The list most scenarios measure: a root at `rootPath` whose `items` link `count`
    /// distinct item resources at `/items/0`, `/items/1`, ...; see
    /// ``registerList(on:rootPath:rel:count:rootLatency:itemPath:)``.
    @discardableResult
    static func registerItems(on requester: InMemoryRequester, rootPath: String, count: Int) async -> [String: Data] {
        await registerList(on: requester, rootPath: rootPath, rel: "items", count: count) { "/items/\($0)" }
    }

    /// A small item resource (about 200 bytes).
    static func item(_ path: String, index: Int) -> JSONValue {
        resource(
            path, links: [("collection", link("/items"))],
            state: [
                ("id", .int(index)), ("name", .string("Item \(index)")),
                ("price", .double(Double(index % 1000) + 0.99)), ("inStock", .bool(index % 3 != 0)),
                ("sku", .string("SKU-\(String(index, radix: 16))")),
            ])
    }
}
