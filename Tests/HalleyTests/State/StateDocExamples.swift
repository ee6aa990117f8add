import Foundation
import Testing

@testable import Halley

/// The `///` examples of the state API, compiled as written, in main-actor code as an app's
/// screens would run them (never run: they name hosts that do not exist). A change that
/// breaks an example breaks the build.
@MainActor
enum StateDocExamples {
    static func store() async throws {
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore(maximumBytes: 8_000_000, defaultFreshness: .seconds(30))
        let manager = ResourceManager(configuration: configuration)
        let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
        let state = try await order.get()
        _ = state
        let store = ResourceStore(maximumBytes: 4_000_000, defaultFreshness: .seconds(10))
        print(ResourceStore().count, ResourceStore().totalBytes, store.maximumBytes)
        ResourceStore().removeAll()
        configuration.store = ResourceStore(defaultFreshness: .seconds(30))
    }

    static func handle(_ manager: ResourceManager) async throws {
        let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
        let state = try await order.get()
        print(state.resource.state["status"] ?? "none", state.etag ?? "no ETag", state.isStale)
        let customer = try await order.follow("customer")
        _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(ifMatch: true))
        _ = try await order.put(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
        let created = try await manager.resource(at: URL(string: "https://api.example.com/orders")!)
            .post(.json(["item": "book"]))
        print(created.location?.absoluteString ?? "no Location")
        _ = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).delete()
        let latest = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).refresh()
        if let state = await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).current {
            print(state.isStale)
        }
        struct Order: Decodable { let total: Double }
        let typed = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).get(Order.self)
        _ = (customer, latest, typed)
    }

    static func events(_ manager: ResourceManager) async {
        let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
        let watcher = Task {
            for await event in order.events {
                switch event {
                case .updated(let state): print("now", state.resource.state)
                case .stale: _ = try? await order.refresh()
                case .deleted: print("gone")
                }
            }
        }
        watcher.cancel()  // ends the loop; nothing stays registered
        for await event in manager.resource(at: URL(string: "https://api.example.com/orders/7")!).events {
            if case .stale = event { break }
        }
    }
}
