#if canImport(Observation)
    import Foundation
    import HalleyTestSupport
    import Testing

    @testable import Halley

    /// Asking again at the right moments (stale observed states, the network coming back, an
    /// interval) and forgetting what nobody uses.
    @MainActor @Suite struct RefreshTriggerTests {
        func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
            for _ in 0..<2_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
            return condition()
        }

        /// /stale (always revalidated, with an ETag), /fresh (a minute) and /unwatched (always
        /// revalidated), and models following the first two (two of /stale).
        func watched() async -> (ScriptedAPI, ResourceStore, [ResourceModel<ResourceState>]) {
            let api = ScriptedAPI()
            await api.serve(
                "/stale", Graph.resource("/stale", ["n": 1]), headers: ["Cache-Control": "no-cache", "ETag": "\"s1\""])
            await api.serve("/fresh", Graph.resource("/fresh", ["n": 2]))
            await api.serve(
                "/unwatched", Graph.resource("/unwatched", ["n": 3]), headers: ["Cache-Control": "no-cache"])
            let store = ResourceStore()
            let manager = await stateManager(api, store: store)
            _ = try? await manager.resource(at: Graph.url("/unwatched")).get()
            var models: [ResourceModel<ResourceState>] = []
            for path in ["/stale", "/stale", "/fresh"] {
                let model = ResourceModel(manager.resource(at: Graph.url(path)))
                await model.load()
                models.append(model)
            }
            return (api, store, models)
        }

        func gets(_ api: ScriptedAPI, _ path: String) async -> [ResourceRequest] {
            await api.requester.requests.filter { $0.url == Graph.url(path) }
        }

        @Test func refreshStaleAsksOnceConditionallyForEachObservedStaleState() async throws {
            let (api, store, models) = await watched()
            #expect(await eventually { store.subscriberCount == 3 })
            let before = await api.requester.requestCount
            let summary = await store.refreshStale()
            #expect(summary.refreshed == [Graph.url("/stale")] && summary.failed.isEmpty)
            #expect(await api.requester.requestCount == before + 1, "one request for the two models of /stale")
            #expect(await gets(api, "/stale").last?.headers["If-None-Match"] == "\"s1\"")
            #expect(await gets(api, "/unwatched").count == 1, "nobody observes it: left alone")
            #expect(models.count == 3)
        }

        @Test func aFailedRefreshKeepsTheStaleStateAndSaysWhy() async throws {
            let (api, store, models) = await watched()
            await api.serve("/stale", .null)  // no longer a HAL document
            let summary = await store.refreshStale()
            #expect(summary.failed[Graph.url("/stale")] != nil)
            #expect(models[0].value?.resource.state["n"] == 1, "stale over nothing")
            #expect(await eventually { store.subscriberCount == 3 })
        }

        @Test func theNetworkComingBackAsksAgainAndOnlyThen() async throws {
            let (api, store, models) = await watched()
            let before = await gets(api, "/stale").count
            store.connectivityChanged(isConnected: true)
            store.connectivityChanged(isConnected: false)
            #expect(await gets(api, "/stale").count == before, "being connected, or losing it, asks nothing")
            store.connectivityChanged(isConnected: true)
            let after = await eventuallyAsync { await self.gets(api, "/stale").count == before + 1 }
            #expect(after, "back online: the stale state is asked for again")
            #expect(models.count == 3)
        }

        func eventuallyAsync(_ condition: @escaping () async -> Bool) async -> Bool {
            for _ in 0..<2_000 {
                if await condition() { return true }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return await condition()
        }

        @Test func aRefreshIntervalThatIsNotPositiveIsATypedErrorNotABusyLoop() async throws {
            let (api, _, models) = await watched()
            let model = models[2]
            let before = await api.requester.requestCount
            model.refreshInterval = .zero
            #expect((model.error as? HalleyError)?.code == .invalidArgument)
            #expect("\(model.error.map { "\($0)" } ?? "")".contains("refreshInterval"))
            model.refreshInterval = .seconds(-5)
            #expect((model.error as? HalleyError)?.code == .invalidArgument)
            await Task.yield()
            #expect(await api.requester.requestCount == before)
        }

        @Test func aRefreshIntervalAsksAgainWhileTheModelFollowsItsHandle() async throws {
            let (api, _, models) = await watched()
            let model = models[2]
            let before = await gets(api, "/fresh").count
            model.refreshInterval = .milliseconds(5)
            #expect(await eventuallyAsync { await self.gets(api, "/fresh").count >= before + 2 })
            model.stop()
            try? await Task.sleep(for: .milliseconds(20))
            #expect(model.error == nil, "a tick the stop cancelled is no error")
        }

        @Test func statesNobodyObservesOrUsesAreForgottenAfterTheIdleTime() async throws {
            // Times are counted from before the states were stored: the store also sweeps by
            // the real clock as it changes, so a state's idle time may start before `start`
            // plus the set-up's length, never before `start`.
            let start = ContinuousClock.now
            let (_, store, models) = await watched()
            #expect(store.count == 3)
            #expect(store.idleTime == .seconds(300), "TanStack's default")
            store.evictIdle(at: start)
            store.evictIdle(at: start + .seconds(299))
            #expect(store.count == 3)
            store.evictIdle(at: start + .seconds(360))
            #expect(store.count == 2, "/unwatched is gone; the observed states stay")
            store.idleTime = .seconds(10)
            for model in models { model.stop() }
            #expect(await eventually { store.subscriberCount == 0 })
            store.evictIdle(at: start + .seconds(362))
            store.evictIdle(at: start + .seconds(375))
            #expect(store.count == 0)
        }

        @Test func aStoreThatNoLongerChangesStillForgetsWhatNobodyUsesByTheClock() async throws {
            let (_, store, models) = await watched()
            #expect(store.count == 3)
            // Nothing touches the store from here on: only its clock can sweep.
            store.idleTime = .milliseconds(200)
            #expect(await eventually { store.count == 2 }, "/unwatched is gone; the observed states stay")
            try? await Task.sleep(for: .milliseconds(400))
            #expect(store.count == 2, "an observed state is never forgotten")
            for model in models { model.stop() }
            #expect(await eventually { store.count == 0 })
        }

        @Test func aModelReleasedWhileItsIntervalsRequestWaitsCancelsItAndEnds() async throws {
            let gate = GatedRequester()
            let url = Graph.url("/orders/7")
            await gate.register(url.absoluteString, json: Graph.resource("/orders/7", ["status": "open"]))
            var configuration = ResourceManager.Configuration()
            let store = ResourceStore(defaultFreshness: .seconds(600))
            configuration.store = store
            let manager = ResourceManager(requester: gate, configuration: configuration)
            var model: ResourceModel<ResourceState>? = ResourceModel(manager.resource(at: url))
            weak let released = model
            let loading = Task { await model?.load() }
            _ = try await gate.waitForParked(1)
            await gate.release()
            await loading.value
            #expect(model?.value?.resource.state["status"] == "open")
            model?.refreshInterval = .milliseconds(5)
            _ = try await gate.waitForParked(1)
            model = nil
            #expect(await eventually { released == nil }, "the tick's request does not keep the model")
            #expect(await gate.waitUntilNothingWaits(), "the request in flight was cancelled")
            #expect(await eventually { store.subscriberCount == 0 })
        }
    }
#endif
