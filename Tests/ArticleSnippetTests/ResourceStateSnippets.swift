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
struct Order: Decodable, Sendable {
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
