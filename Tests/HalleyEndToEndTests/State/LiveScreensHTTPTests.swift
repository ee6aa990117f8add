#if canImport(Observation)
    import Foundation
    import HalleyTestSupport
    import Testing

    @testable import Halley

    /// The scenario of LiveScreens.md over loopback HTTP (`/scripted/...` routes of
    /// `hal_test_server.py`): a list of 120 orders over 3 pages, an optimistic edit the server
    /// refuses, another client's edit seen after `refreshStale()`.
    @MainActor @Suite struct LiveScreensHTTPTests {
        struct Order: Decodable, Sendable {
            let number: Int
            let status: String
        }

        /// Holds each write until the test lets it go, then sends it over the real transport:
        /// what the screens show before the server answers is read deterministically.
        final class HoldingWrites: RequesterInterface, Sendable {
            let inner: any RequesterInterface & Sendable
            private let gate = LockedValue<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

            init(_ inner: any RequesterInterface & Sendable) { self.inner = inner }

            func release() {
                let waiters = gate.withLock { gate in
                    gate.open = true
                    defer { gate.waiters = [] }
                    return gate.waiters
                }
                for waiter in waiters { waiter.resume() }
            }

            func response(for request: ResourceRequest) async throws -> ResourceResponse {
                if request.method != .get {
                    await withCheckedContinuation { continuation in
                        let open = gate.withLock { gate in
                            if !gate.open { gate.waiters.append(continuation) }
                            return gate.open
                        }
                        if open { continuation.resume() }
                    }
                }
                return try await inner.response(for: request)
            }
        }

        func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
            for _ in 0..<5_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
            return condition()
        }

        @Test func theListAndTheDetailStayLiveThroughARefusedEditAndAnotherClientsEdit() async throws {
            let api = ResourceStateHTTPTests.API(server: try await TestServer.shared())
            func order(_ number: Int, _ status: String = "open") -> JSONValue {
                api.document("orders/\(number)", ["number": .int(number), "status": .string(status)])
            }
            func page(_ index: Int, changing changed: [Int: String] = [:]) -> JSONValue {
                let numbers = (index * 40 + 1)...(index * 40 + 40)
                let links: JSONObject = index < 2 ? ["next": api.link("orders-\(index + 1)")] : [:]
                return api.document(
                    "orders-\(index)", links: links,
                    embedded: ["item": .array(numbers.map { order($0, changed[$0] ?? "open") })])
            }
            // Page 0 is revalidated on every use; pages 1 and 2 stay fresh for ten minutes.
            try await api.serve("orders-0", page(0), headers: [("Cache-Control", "no-cache"), ("ETag", "\"p0-1\"")])
            for index in 1...2 { try await api.serve("orders-\(index)", page(index)) }
            try await api.serve(
                "orders/7", order(7), headers: [("Cache-Control", "max-age=600"), ("ETag", "\"o7-1\"")])
            try await api.answer("PATCH", "orders/7", status: 409, body: ["message": "order 7 is already shipped"])

            let holding = HoldingWrites(try CurlRequester())
            var configuration = ResourceManager.Configuration()
            configuration.store = ResourceStore()
            let manager = ResourceManager(requester: holding, configuration: configuration)
            let store = try #require(configuration.store)

            let list = ResourceListModel(manager, from: api.url("orders-0"), as: Order.self)
            for _ in 0..<3 { await list.loadMore() }
            #expect(list.rows.count == 120 && !list.hasMore)
            let seven = manager.resource(at: api.url("orders/7"))
            let detail = ResourceModel(seven, as: Order.self)
            await detail.load()
            _ = try await seven.refresh()  // its own state, with its ETag
            #expect(await eventually { detail.value?.status == "open" })

            // The user marks order 7 paid: both show it before the server answers.
            let write = Task { try await seven.patch(.json(["status": "paid"]), expecting: .mergePatch) }
            #expect(await eventually { detail.value?.status == "paid" && detail.isPending })
            #expect(await eventually { list.rows[6].value.status == "paid" && list.rows[6].isPending })
            #expect(try await api.requests("orders/7").filter { $0.method == "PATCH" }.isEmpty, "still held")

            // The server refuses it: both show the old status and the error.
            holding.release()
            await #expect(throws: HalleyError.self) { try await write.value }
            #expect(await eventually { detail.value?.status == "open" && !detail.isPending })
            #expect(await eventually { list.rows[6].value.status == "open" && !list.rows[6].isPending })
            #expect((detail.error as? HalleyError)?.httpError?.status == 409)
            #expect((list.error as? HalleyError)?.httpError?.status == 409)

            // Another client edits order 12; the app returns to the foreground.
            try await api.serve(
                "orders-0", page(0, changing: [12: "shipped"]),
                headers: [("Cache-Control", "no-cache"), ("ETag", "\"p0-2\"")])
            let before = try await api.requests().count
            let summary = await store.refreshStale()
            #expect(summary.failed.isEmpty)
            #expect(await eventually { list.rows[11].value.status == "shipped" })
            let asked = try await api.requests().dropFirst(before)
            #expect(asked.map(\.path) == [api.path("orders-0")], "only the stale page: \(asked.map(\.path))")
            #expect(asked.first?.headers["if-none-match"] == "\"p0-1\"", "conditionally")
            #expect(list.rows.count == 120)
        }
    }
#endif
