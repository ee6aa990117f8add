import Foundation
import Halley
import HalleyTestSupport
import Testing

/// The advice of a write that asks for `If-Match` with no `ETag` stored works when followed
/// (issue 38): `get()` may answer with a fresh embedded copy, which has no `ETag`;
/// `refresh()` fetches the resource's own URL.
@Suite struct IfMatchAdviceTests {
    /// `/orders` embeds a copy of `/orders/1`; `/orders/1` itself answers with `ETag: "1"`.
    private func api() async -> ScriptedAPI {
        let api = ScriptedAPI()
        await api.serve(
            "/orders/1", Graph.resource("/orders/1", ["status": "open", "total": 30]),
            headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
        await api.serve(
            "/orders", Graph.resource("/orders", embedded: ["item": [Graph.resource("/orders/1", ["status": "open"])]]))
        await api.answerWrites("/orders/1")
        return api
    }

    @Test func aStateThatIsOnlyAnEmbeddedCopyIsRefreshedAndThenTheWriteSendsIfMatch() async throws {
        let api = await api()
        let manager = await stateManager(api)
        _ = try await manager.resource(at: Graph.url("/orders")).get()
        let order = manager.resource(at: Graph.url("/orders/1"))
        let copy = try await order.get()
        #expect(copy.etag == nil, "the embedded copy answers get(), with no ETag")
        #expect(await api.requester.count(for: Graph.base + "/orders/1") == 0)

        let error = await #expect(throws: HalleyError.self) {
            try await order.patch(.json(["status": "paid"]), options: WriteOptions(ifMatch: true))
        }
        #expect(error?.code == .missingValidator)
        #expect(
            error?.message
                == "PATCH with If-Match needs the resource's ETag, and none is stored; refresh() it first, which "
                + "fetches its own URL (an embedded copy has no ETag), and its response must carry one")
        #expect(error?.description.components(separatedBy: Graph.url("/orders/1").absoluteString).count == 2)
        #expect(await api.requester.count(for: Graph.base + "/orders/1") == 0, "nothing was sent")

        // What the message says, followed: get() again is the embedded copy still, refresh() is not.
        #expect(try await order.get().etag == nil)
        let refreshed = try await order.refresh()
        #expect(refreshed.etag == "\"1\"")
        _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(ifMatch: true))
        let write = try #require(await api.requester.requests.last)
        #expect(write.method == .patch)
        #expect(write.headers["If-Match"] == "\"1\"")
    }
}
