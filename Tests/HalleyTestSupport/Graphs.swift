import Foundation
import Halley

/// Builds HAL documents and registers them on an in-memory requester.
public enum Graph {
    public static let base = "https://api.example.com"

    public static func url(_ path: String) -> URL {
        URL(string: base + path)!  // Test-only literal URLs.
    }

    public static func link(_ href: String, _ extra: JSONObject = [:]) -> JSONValue {
        var object: JSONObject = ["href": .string(href)]
        for (key, value) in extra.members { object[key] = value }
        return .object(object)
    }

    /// A resource with `self`, extra links and attributes.
    public static func resource(
        _ path: String, links: JSONObject = [:], embedded: JSONObject? = nil, _ state: JSONObject = [:]
    )
        -> JSONValue
    {
        var linkObject: JSONObject = ["self": link(path)]
        for (key, value) in links.members { linkObject[key] = value }
        var object: JSONObject = ["_links": .object(linkObject)]
        for (key, value) in state.members { object[key] = value }
        if let embedded { object["_embedded"] = .object(embedded) }
        return .object(object)
    }

    /// The contact graph: 1 knows 2 and 3, 2 knows 1 and 3, 3 knows 1; each has a website.
    public static func contacts(latency: Duration = .zero) async -> InMemoryRequester {
        let requester = InMemoryRequester(latency: latency)
        let knows: [Int: [Int]] = [1: [2, 3], 2: [1, 3], 3: [1]]
        for id in 1...3 {
            let contactLinks = (knows[id] ?? []).map { link("/contacts/\($0)") }
            await requester.register(
                base + "/contacts/\(id)",
                json: resource(
                    "/contacts/\(id)",
                    links: ["contacts": .array(contactLinks), "website": link("/websites/\(id)")],
                    ["id": .string("\(id)"), "name": .string("Contact \(id)")]))
            await requester.register(
                base + "/websites/\(id)",
                json: resource(
                    "/websites/\(id)", ["id": .string("w\(id)"), "url": .string("https://site\(id).example")]))
        }
        return requester
    }

    /// A tree of the given depth and fan-out below `/n`, each node linking its children as `[children]`.
    public static func tree(
        depth: Int, fanOut: Int, into requester: InMemoryRequester, latency: (String) -> Duration? = { _ in nil }
    )
        async -> Int
    {
        var count = 0
        func add(_ path: String, level: Int) async {
            count += 1
            let children = level < depth ? (0..<fanOut).map { "\(path)-\($0)" } : []
            await requester.register(
                base + path,
                json: resource(path, links: ["children": .array(children.map { link($0) })], ["level": .int(level)]),
                latency: latency(path))
            for child in children { await add(child, level: level + 1) }
        }
        await add("/n", level: 0)
        return count
    }
}

/// Collects observer events for assertions.
public final class EventLog: Sendable {
    private let events = Locked<[HalleyEvent]>([])

    /// An empty log.
    public init() {}

    public var observer: TraversalObserver {
        { [events] event in events.withLock { $0.append(event) } }
    }

    public var all: [HalleyEvent] { events.get() }

    /// Call options whose observer records into this log.
    public var options: CallOptions {
        var options = CallOptions()
        options.observer = observer
        return options
    }

    public var finished: [RequestRecord] {
        all.compactMap { if case .requestFinished(let record) = $0 { return record } else { return nil } }
    }
}

extension InMemoryRequester {
    /// Answers `Graph.base + path` with `Graph.resource(path, ...)`: the URL and the `self`
    /// link of a graph's document written once.
    public func serve(_ path: String, links: JSONObject = [:], embedded: JSONObject? = nil, _ state: JSONObject = [:]) {
        register(Graph.base + path, json: Graph.resource(path, links: links, embedded: embedded, state))
    }
}

extension GatedRequester {
    /// Answers `Graph.base + path` with `Graph.resource(path, ...)`, once released.
    public func serve(_ path: String, links: JSONObject = [:], embedded: JSONObject? = nil, _ state: JSONObject = [:]) {
        register(Graph.base + path, json: Graph.resource(path, links: links, embedded: embedded, state))
    }
}
