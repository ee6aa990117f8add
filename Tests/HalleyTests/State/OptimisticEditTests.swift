#if canImport(Observation)
    import Foundation
    import HalleyTestSupport
    import Testing

    @testable import Halley

    /// Optimistic edits: shown at once, pending, to the handle's observers and the collections
    /// listing the resource; replaced by the server's answer or rolled back on failure.
    @MainActor @Suite struct OptimisticEditTests {
        struct Order: Decodable, Sendable {
            let status: String
            let note: String?
        }

        func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
            for _ in 0..<2_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
            return condition()
        }

        /// Order 1 (`open`, ETag "v1") listed by /orders, and a manager with a store over them.
        func orders() async -> (HeldWritesAPI, ResourceManager) {
            let api = HeldWritesAPI()
            let order = Graph.resource("/orders/1", ["status": "open"])
            await api.serve("/orders/1", order, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
            await api.serve("/orders", Graph.resource("/orders", embedded: ["item": [order]]))
            var configuration = ResourceManager.Configuration()
            configuration.store = ResourceStore()
            return (api, ResourceManager(requester: api.requester, configuration: configuration))
        }

        func paid(_ path: String = "/orders/1") -> HeldWritesAPI.Answer {
            HeldWritesAPI.Answer(
                status: 200, headers: ["Content-Location": path, "ETag": "\"v2\""],
                json: Graph.resource(path, ["status": "paid", "note": "by card"]))
        }

        @Test func anEditShowsAtOnceMarkedPendingAndTheServersAnswerReplacesIt() async throws {
            let (api, manager) = await orders()
            let handle = manager.resource(at: Graph.url("/orders/1"))
            let detail = ResourceModel(handle, as: Order.self)
            let list = ResourceModel(manager.resource(at: Graph.url("/orders")))
            await detail.load()
            await list.load()
            let before = try #require(await handle.current)

            let write = Task { try await handle.patch(.json(["status": "paid"]), expecting: .mergePatch) }
            await api.waitForWrites(1)
            #expect(await eventually { detail.value?.status == "paid" && detail.isPending })
            #expect(await eventually { list.isPending })
            let listed = list.value?.resource.embedded.resources(for: LinkRelation("item")).first
            #expect(listed?.state["status"] == "paid", "the collection listing it shows the edit too")
            let shown = try #require(await handle.current)
            #expect(shown.isPending && shown.etag == nil, "a pending state carries no validator")
            #expect(await api.writes.first?.headers["Content-Type"] == "application/merge-patch+json")

            await api.answerNext(paid())
            _ = try await write.value
            #expect(await eventually { detail.value?.note == "by card" && !detail.isPending })
            #expect(await eventually { !list.isPending })
            #expect(detail.error == nil)
            #expect(await handle.current?.etag == "\"v2\"")
            #expect(before.etag == "\"v1\"")
        }

        @Test func aRefusedEditRestoresExactlyTheStateBeforeOnceWithTheError() async throws {
            let (api, manager) = await orders()
            let handle = manager.resource(at: Graph.url("/orders/1"))
            let before = try await handle.get()
            let detail = ResourceModel(handle, as: Order.self)
            await detail.load()
            var events = handle.events.makeAsyncIterator()
            #expect(await events.next()?.state == before)

            let write = Task { try await handle.patch(.json(["status": "paid"]), expecting: .mergePatch) }
            let pending = try #require(await events.next()?.state)
            #expect(pending.isPending && pending.resource.state["status"] == "paid")
            await api.waitForWrites(1)
            await api.answerNext(.init(status: 409, json: ["message": "order 1 is shipped"]))
            await #expect(throws: HalleyError.self) { try await write.value }

            let restored = try #require(await events.next()?.state)
            #expect(restored.resource == before.resource && restored.etag == before.etag)
            #expect(!restored.isPending)
            let rejection = try #require(restored.rejectedEdit)
            #expect(rejection.method == .patch)
            #expect((rejection.error as? HalleyError)?.httpError?.status == 409)
            #expect(await handle.current == before, "what is stored never changed")
            #expect(await eventually { detail.value?.status == "open" && !detail.isPending })
            #expect((detail.error as? HalleyError)?.httpError?.status == 409, "the error is on the model")

            // One `updated` back, nothing after it.
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "shipped"]))
            _ = try await handle.refresh()
            #expect(await events.next()?.state?.rejectedEdit == nil, "the next event is the refresh's")
        }

        @Test func twoEditsApplyInOrderAndARollbackOfTheFirstKeepsTheSecondOnTheRealState() async throws {
            let (api, manager) = await orders()
            let handle = manager.resource(at: Graph.url("/orders/1"))
            let detail = ResourceModel(handle, as: Order.self)
            await detail.load()

            let first = Task {
                try await handle.patch(.json(["status": "paid", "note": "first"]), expecting: .mergePatch)
            }
            await api.waitForWrites(1)
            let second = Task { try await handle.patch(.json(["note": "second"]), expecting: .mergePatch) }
            await api.waitForWrites(2)
            #expect(await eventually { detail.value?.status == "paid" && detail.value?.note == "second" })

            await api.answerNext(.init(status: 409))
            await #expect(throws: HalleyError.self) { try await first.value }
            #expect(await eventually { detail.value?.status == "open" && detail.value?.note == "second" })
            #expect(detail.isPending, "the second edit still waits")
            let shown = try #require(await handle.current)
            #expect(shown.resource.state["status"] == "open" && shown.resource.state["note"] == "second")

            // Answered with no representation: the expected state stays, stale and settled.
            await api.answerNext(.init(status: 204))
            _ = try await second.value
            #expect(await eventually { !detail.isPending && detail.isStale })
            #expect(detail.value?.note == "second", "no flicker back to the old value before the refresh")
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "open", "note": "second"]))
            await detail.refresh()
            #expect(detail.value?.note == "second" && !detail.isStale && !detail.isPending)
            #expect(await handle.current?.isPending == false)
        }

        @Test func theServersLateSuccessWinsOverTheRollbackOnce() async throws {
            let (api, manager) = await orders()
            var options = CallOptions()
            // The answer is applied to the store, then the call fails: the edit must not roll back.
            options.policy.validator = { response, _ in
                if response.status == 200, response.headers["Content-Location"] != nil {
                    throw HalleyError(code: .validation, message: "rejected after the store applied it")
                }
            }
            let handle = manager.resource(at: Graph.url("/orders/1"), options: options)
            _ = try await handle.get()
            var events = handle.events.makeAsyncIterator()
            _ = await events.next()
            let write = Task { try await handle.patch(.json(["status": "paid"]), expecting: .mergePatch) }
            #expect(await events.next()?.state?.isPending == true)
            await api.waitForWrites(1)
            await api.answerNext(paid())
            await #expect(throws: HalleyError.self) { try await write.value }
            let answered = try #require(await events.next()?.state)
            #expect(answered.resource.state["note"] == "by card" && !answered.isPending)
            #expect(answered.rejectedEdit == nil)
            await api.serve("/orders/1", Graph.resource("/orders/1", ["status": "shipped"]))
            _ = try await handle.refresh()
            #expect(await events.next()?.state?.rejectedEdit == nil, "no rollback after the success")
        }

        @Test func aPendingStateIsNeverSentAsAValidatorNorStored() async throws {
            let (api, manager) = await orders()
            let handle = manager.resource(at: Graph.url("/orders/1"))
            _ = try await handle.get()
            let store = try #require(manager.configuration.store)
            let bytes = store.totalBytes
            let write = Task { try await handle.patch(.json(["status": "paid"]), expecting: .mergePatch) }
            await api.waitForWrites(1)
            #expect(store.totalBytes == bytes, "the pending state is not among the stored ones")
            _ = try await handle.refresh()
            #expect(await api.gets.last?.headers["If-None-Match"] == "\"v1\"", "the stored validator, not the edit's")
            let second = Task {
                try await handle.patch(.json(["note": "x"]), options: WriteOptions(ifMatch: true))
            }
            await api.waitForWrites(2)
            #expect(await api.writes.last?.headers["If-Match"] == "\"v1\"")
            await api.answerNext(.init(status: 409))
            await api.answerNext(.init(status: 409))
            _ = try? await write.value
            _ = try? await second.value
            #expect(await handle.current?.isPending == false, "no pending state outlives its write")
        }

        @Test func badExpectationsAreTypedErrorsAndNothingIsSent() async throws {
            let (api, manager) = await orders()
            let handle = manager.resource(at: Graph.url("/orders/1"))
            _ = try await handle.get()
            let notAnObject = await #expect(throws: HalleyError.self) {
                try await handle.patch(.text("status=paid"), expecting: .mergePatch)
            }
            #expect(notAnObject?.code == .invalidArgument)
            #expect("\(notAnObject.map { "\($0)" } ?? "")".contains("JSON object"))
            let noHAL = await #expect(throws: HalleyError.self) {
                try await handle.put(
                    .json(["status": "paid"]),
                    expecting: .changing { current in
                        var next = current
                        next["_links"] = "not links"
                        return next
                    })
            }
            #expect(noHAL?.code == .invalidArgument)
            #expect(await api.writes.isEmpty)
            #expect(await handle.current?.isPending == false)
        }
    }
#endif
