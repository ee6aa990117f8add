#if canImport(Observation)
    import Foundation
    import HalleyTestSupport
    import Observation
    import Testing

    @testable import Halley

    /// The observable model over a handle, tracked as SwiftUI tracks it: with
    /// `withObservationTracking`, on the main actor.
    @MainActor @Suite struct ResourceModelTests {
        struct Order: Decodable, Sendable {
            let status: String
        }

        /// Notes when a property `read` touched then changed, as SwiftUI would.
        @MainActor final class ChangeWatch {
            private(set) var changed = false

            init(_ read: @escaping @MainActor () -> Void) {
                withObservationTracking(read) { [weak self] in
                    MainActor.assumeIsolated { self?.changed = true }
                }
            }
        }

        /// Waits (briefly) until `condition` holds, letting the model's follower run.
        func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
            for _ in 0..<2_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
            return condition()
        }

        /// Order 1, `open`, on an API answering its writes with `newState`, or with a bare 204
        /// when `nil`; and a manager with a store over it. The API answers while it lives: keep it.
        func openOrder(answeringWritesWith newState: JSONObject? = nil) async -> (ScriptedAPI, ResourceManager) {
            let api = ScriptedAPI()
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "open"]))
            if let newState {
                await api.answerWrites("/orders/1", withNewState: newState)
            } else {
                await api.answerWrites("/orders/1")
            }
            return (api, await stateManager(api))
        }

        @Test func anEditThroughAnotherHandleReachesTheModelWithNoRefetch() async throws {
            let (api, manager) = await openOrder(answeringWritesWith: ["status": "paid"])
            let model = ResourceModel(manager.resource(at: Graph.url("/orders/1")), as: Order.self)
            await model.load()
            #expect(model.value?.status == "open")
            #expect(model.isLoading == false && model.error == nil)

            let watch = ChangeWatch { _ = model.value }
            _ = try await manager.resource(at: Graph.url("/orders/1")).put(.json(["status": "paid"]))
            #expect(await eventually { watch.changed }, "Observation heard the change")
            #expect(await eventually { model.value?.status == "paid" })
            #expect(await api.requester.requestCount == 2, "one GET, one PUT: the model did not refetch")
        }

        @Test func aStaleStateIsRefetchedWhenAsked() async throws {
            let (api, manager) = await openOrder()
            let model = ResourceModel(
                manager.resource(at: Graph.url("/orders/1")), as: Order.self, refreshesWhenStale: true)
            await model.load()
            let watch = ChangeWatch { _ = model.isStale }
            // A write answered without the new state: the stored one is stale, and the model asks again.
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "shipped"]))
            _ = try await manager.resource(at: Graph.url("/orders/1")).patch(.json(["status": "shipped"]))
            #expect(await eventually { watch.changed })
            #expect(await eventually { model.value?.status == "shipped" && !model.isStale })
            #expect(await api.requester.requestCount == 3, "GET, PATCH, then one GET for the stale state")
        }

        @Test func withoutRefreshingAStaleStateStaysAndSaysSo() async throws {
            let (api, manager) = await openOrder()
            let model = ResourceModel(manager.resource(at: Graph.url("/orders/1")))
            await model.load()
            _ = try await manager.resource(at: Graph.url("/orders/1")).patch(.json(["status": "shipped"]))
            #expect(await eventually { model.isStale })
            #expect(model.value?.resource.state["status"] == "open", "the last state stays on screen")
            #expect(await api.requester.requestCount == 2)
        }

        @Test func aDeletedResourceEmptiesTheModel() async throws {
            let (api, manager) = await openOrder()
            let model = ResourceModel(manager.resource(at: Graph.url("/orders/1")))
            await model.load()
            _ = try await manager.resource(at: Graph.url("/orders/1")).delete()
            #expect(await eventually { model.isDeleted })
            #expect(model.value == nil)
            #expect(await api.requester.requestCount == 2, "GET, DELETE: a deleted resource is not fetched again")
        }

        @Test func aFailedLoadKeepsItsErrorAndADecodingErrorNamesThePath() async throws {
            let api = ScriptedAPI()
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": 7]))
            let manager = await stateManager(api)
            let model = ResourceModel(manager.resource(at: Graph.url("/orders/1")), as: Order.self)
            await model.load()
            #expect(model.value == nil)
            let error = try #require(model.error as? HalleyError)
            #expect(error.code == .decoding)
            #expect("\(error)".contains("status"), "\(error)")

            let missing = ResourceModel(manager.resource(at: Graph.url("/nowhere")))
            await missing.load()
            #expect((missing.error as? HalleyError)?.code == .http)
        }

        @Test func releasingOrStoppingTheModelUnregistersItsFollower() async throws {
            let api = ScriptedAPI()
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "open"]))
            let store = ResourceStore()
            let manager = await stateManager(api, store: store)
            var model: ResourceModel<ResourceState>? = ResourceModel(manager.resource(at: Graph.url("/orders/1")))
            await model?.load()
            #expect(await eventually { store.subscriberCount == 1 })
            model = nil
            #expect(await eventually { store.subscriberCount == 0 }, "a released model follows nothing")

            let kept = ResourceModel(manager.resource(at: Graph.url("/orders/1")))
            await kept.load()
            await kept.load()
            #expect(await eventually { store.subscriberCount == 1 }, "one follower however often it loads")
            kept.stop()
            #expect(await eventually { store.subscriberCount == 0 })
            #expect(kept.value != nil, "stopping keeps the value")
        }
    }
#endif
