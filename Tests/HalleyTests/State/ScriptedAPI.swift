import Foundation
import Halley
import HalleyTestSupport

/// A HAL API on an in-memory requester whose answers a test scripts per path and method:
/// `GET` serves the path's current document, other methods the scripted answer.
actor ScriptedAPI {
    typealias Answer = ScriptedAnswer

    let requester = InMemoryRequester()
    private var documents: [String: Answer] = [:]
    private var writes: [String: Answer] = [:]
    private var registered: Set<String> = []

    /// Serves `json` at `path` (absolute URLs for other origins) to `GET`.
    func serve(_ path: String, _ json: JSONValue, headers: HeaderFields = ["Cache-Control": "max-age=60"]) async {
        documents[path] = Answer(status: 200, headers: headers, json: json)
        await register(path)
    }

    /// Answers every unsafe method at `path` with this.
    func answerWrites(_ path: String, status: Int = 204, headers: HeaderFields = [:], json: JSONValue? = nil) async {
        writes[path] = Answer(status: status, headers: headers, json: json)
        await register(path)
    }

    /// Answers every unsafe method at `path` with the resource's new state: a 200 whose
    /// `Content-Location` is `path`, so that the store takes the body as the new state.
    func answerWrites(_ path: String, withNewState state: JSONObject) async {
        await answerWrites(path, status: 200, headers: ["Content-Location": path], json: Graph.resource(path, state))
    }

    private func register(_ path: String) async {
        guard registered.insert(path).inserted else { return }
        let url = path.hasPrefix("http") ? path : Graph.base + path
        await requester.register(url) { [weak self] request in
            guard let self else { throw CancellationError() }
            return await self.respond(path, request)
        }
    }

    private func respond(_ path: String, _ request: ResourceRequest) -> ResourceResponse {
        let answer = request.method == .get ? documents[path] : writes[path]
        guard let answer else {
            return ResourceResponse(status: 404, url: request.url, body: Data())
        }
        return answer.response(to: request)
    }
}

/// What a scripted API answers one request with (``ScriptedAPI``, ``HeldWritesAPI``).
struct ScriptedAnswer: Sendable {
    var status: Int
    var headers: HeaderFields = [:]
    var json: JSONValue? = nil

    /// The response: a JSON body is sent as HAL, whatever the script's headers say.
    func response(to request: ResourceRequest) -> ResourceResponse {
        var headers = headers
        var body = Data()
        if let json {
            headers["Content-Type"] = "application/hal+json"
            body = json.serialized()
        }
        return ResourceResponse(status: status, headers: headers, url: request.url, body: body)
    }
}

/// A manager with a store over `api`'s requester.
func stateManager(
    _ api: ScriptedAPI, store: ResourceStore = ResourceStore(), observer: TraversalObserver? = nil,
    cache: ResponseCache? = nil
) async -> ResourceManager {
    var configuration = ResourceManager.Configuration()
    configuration.store = store
    configuration.cache = cache
    configuration.observer = observer
    return ResourceManager(requester: api.requester, configuration: configuration)
}

/// The call options of a user with `token`.
func user(_ token: String) -> CallOptions {
    var options = CallOptions()
    options.headers = ["Authorization": "Bearer \(token)"]
    return options
}

extension ResourceEvent {
    /// `updated`, `stale` or `deleted`.
    var kind: String {
        switch self {
        case .updated: return "updated"
        case .stale: return "stale"
        case .deleted: return "deleted"
        }
    }

    var state: ResourceState? {
        if case .updated(let state) = self { return state }
        return nil
    }
}
