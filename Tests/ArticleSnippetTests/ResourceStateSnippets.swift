// swift-format-ignore-file
// KeepingResourceState.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). The app scenario runs against a StubAPI: the
// list shows the edit with no refetch.
import Foundation
import Halley
import HalleyTesting
import Testing

@MainActor func resourceStateOverview() -> ResourceManager {
    // snippet KeepingResourceState.md "Overview"
    var configuration = ResourceManager.Configuration()
    configuration.store = ResourceStore(maximumBytes: 20_000_000)   // bounded; least recently used first
    let manager = ResourceManager(configuration: configuration)
    // end snippet
    return manager
}

// snippet KeepingResourceState.md "List, detail, edit"
nonisolated struct Order: Decodable, Sendable {
    let status: String
}

@MainActor
func editFromTheList(_ manager: ResourceManager) async throws -> (list: ResourceModel<ResourceState>, detail: ResourceModel<Order>) {
    let list = ResourceModel(manager.resource(at: URL(string: "https://api.example.com/orders")!))
    await list.load()                        // GET /orders; each embedded order is stored too

    let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    let detail = ResourceModel(order, as: Order.self)
    await detail.load()                      // fresh from the list's copy: no request

    _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
    // The answer carried the new state (Content-Location: /orders/7): it is stored, the detail
    // shows "paid", and the list, which embeds order 7, is updated with it.
    return (list, detail)
}
// end snippet

@MainActor @Test func theListShowsTheEditWithNoRefetch() async throws {
    let api = StubAPI()
    let open = StubResource(["status": "open"], selfLink: "/orders/7")
    api.resource("/orders", StubResource().embedding("item", [open]), headers: ["Cache-Control": "max-age=60"])
    api.respond(
        to: .patch, "/orders/7",
        with: .json(
            StubResource(["status": "paid"], selfLink: "/orders/7").json(), status: 200,
            headers: ["Content-Location": "/orders/7"]))
    var configuration = ResourceManager.Configuration()
    configuration.store = ResourceStore()
    let manager = ResourceManager(requester: api.requester, configuration: configuration)

    let (list, detail) = try await editFromTheList(manager)

    for _ in 0..<2_000 where detail.value?.status != "paid" { try await Task.sleep(for: .milliseconds(1)) }
    #expect(detail.value?.status == "paid")
    func listed() -> JSONValue? { list.value?.resource.embedded.resource(for: "item")?.state["status"] }
    for _ in 0..<2_000 where listed() != "paid" { try await Task.sleep(for: .milliseconds(1)) }
    #expect(listed() == "paid", "the list's copy of order 7")
    #expect(api.requestLines == ["GET /orders", "PATCH /orders/7"], "no refetch")
}

@MainActor func watchSnippet(_ order: ResourceHandle) -> Task<Void, Never> {
    // snippet KeepingResourceState.md "Events"
    func watch(_ order: ResourceHandle) -> Task<Void, Never> {
        Task {
            for await event in order.events {
                switch event {
                case .updated(let state): print("order is", state.resource.state["status"] ?? "?")
                case .stale: _ = try? await order.refresh()
                case .deleted: return
                }
            }
        }
    }
    // end snippet
    return watch(order)
}

// snippet KeepingResourceState.md "Server"
func ordersFor(token: String, manager: ResourceManager) async throws -> JSONValue {
    var options = CallOptions()
    options.headers = ["Authorization": "Bearer \(token)"]
    // Fresh states of this user are reused; nothing of another user's is.
    return try await manager.resource(
        from: URL(string: "https://api.example.com/orders")!, includes: ["[item].customer"], options: options)
}
// end snippet

// snippet KeepingResourceState.md "Cache policies"
func show(_ order: ResourceHandle) async throws {
    let state = try await order.get(policy: .storedThenRefresh)   // at once, even stale
    if let failure = state.refreshFailure { print("showing the last known order:", failure.error.message) }
}
// end snippet

/// Compiled, not run: it would create the caches directory of whoever runs the tests.
func durableStoreSetUp() -> ResourceManager {
    // snippet KeepingResourceState.md "Keeping state across launches"
    var configuration = ResourceManager.Configuration()
    let store = ResourceStore(file: ResourceStore.defaultFile, maximumBytesOnDisk: 50_000_000) { event in
        print("resource store:", event)   // a file set aside, a migration, a state it could not read
    }
    if let problem = store.persistenceError { print(problem) }   // kept in memory only, and why
    configuration.store = store
    let manager = ResourceManager(configuration: configuration)
    // end snippet
    return manager
}

// snippet KeepingResourceState.md "The scenario"
@MainActor
func launch(_ manager: ResourceManager, isOnline: Bool) async -> [ResourceModel<ResourceState>] {
    let paths = ["/orders", "/orders/7", "/orders/8"]
    let policy: CachePolicy = isOnline ? .storedThenRefresh : .storedOnly
    var models: [ResourceModel<ResourceState>] = []
    for path in paths {
        let model = ResourceModel(manager.resource(at: URL(string: "https://api.example.com" + path)!), policy: policy)
        await model.load()   // the stored state at once; online, a stale one is revalidated
        models.append(model)
    }
    return models
}

func signOut(_ manager: ResourceManager, store: ResourceStore) async {
    // The signed-in user's states, in memory and on disk; other users' stay.
    await store.wipe(scope: manager.resource(at: URL(string: "https://api.example.com/")!))
}
// end snippet

@MainActor @Test func theRelaunchScenarioShowsTheStoredStatesOfflineAndNothingAfterSignOut() async throws {
    let api = StubAPI()
    for path in ["/orders", "/orders/7", "/orders/8"] {
        api.resource(path, StubResource(["path": .string(path)], selfLink: path), headers: ["ETag": "\"1\""])
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("halley-article-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("states.sqlite")
    func manager(_ store: ResourceStore) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.store = store
        return ResourceManager(requester: api.requester, configuration: configuration)
    }
    let first = ResourceStore(file: file)
    let online = await launch(manager(first), isOnline: true)
    #expect(online.allSatisfy { $0.value != nil })
    await first.flush()

    let relaunched = ResourceStore(file: file)
    let offline = await launch(manager(relaunched), isOnline: false)
    #expect(offline.compactMap { $0.value?.resource.state["path"]?.stringValue } == ["/orders", "/orders/7", "/orders/8"])
    #expect(api.requestLines.count == 3, "offline: no request")

    await signOut(manager(relaunched), store: relaunched)
    let afterSignOut = await launch(manager(ResourceStore(file: file)), isOnline: false)
    #expect(afterSignOut.allSatisfy { $0.value == nil && $0.error != nil })
}
