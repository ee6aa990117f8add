import Foundation
import Halley
import HalleyTesting
import Testing

// That this module really builds as Xcode 26 builds a new app target. Each check compiles only
// in that mode (or fails when run outside it), so a manifest that lost a setting fails here
// rather than letting the linked snippets pass in the ordinary mode.

/// Isolated to the main actor, as every declaration of the module is.
@MainActor func mainActorCount() -> Int { 1 }

/// No annotation: it calls a main-actor function synchronously, which compiles only when
/// unannotated code is main-actor isolated (`.defaultIsolation(MainActor.self)`).
func unannotatedCount() -> Int { mainActorCount() + 1 }

/// The isolation a nonisolated async function runs in: its caller's with
/// `NonisolatedNonsendingByDefault`, none (the global executor) without it.
nonisolated func isolationOfTheCaller() async -> (any Actor)? { #isolation }

/// Not `Sendable`, and not main-actor isolated either.
nonisolated final class Tally {
    var count = 0
}

/// Runs on the caller's actor, so a main-actor caller's non-`Sendable` value stays with it.
nonisolated func add(to tally: Tally) async { tally.count += 1 }

/// A requester of this module, declared `nonisolated` as the Getting Started article says: it
/// reports the isolation Halley calls it in.
nonisolated struct IsolationProbe: RequesterInterface, Sendable {
    let report: @Sendable (_ onMainActor: Bool) -> Void

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        report(#isolation === MainActor.shared)
        return ResourceResponse(
            status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url,
            body: Data(#"{"_links":{"self":{"href":"/"}}}"#.utf8))
    }
}

@Suite struct DefaultIsolationTests {
    @Test func unannotatedCodeIsMainActorIsolated() {
        MainActor.preconditionIsolated("an unannotated test runs on the main actor")
        #expect(unannotatedCount() == 2)
    }

    @Test func nonisolatedAsyncFunctionsRunOnTheCallersActor() async {
        #expect(await isolationOfTheCaller() === MainActor.shared)
        let tally = Tally()
        await add(to: tally)
        await add(to: tally)
        #expect(tally.count == 2)
    }

    /// Halley's own async API stays concurrent: a main-actor caller's request is not made on
    /// the main actor (the library is not built in this mode; its calls hop off the caller's
    /// actor as they do everywhere).
    @Test func halleyCallsTheRequesterOffTheMainActor() async throws {
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        let manager = ResourceManager(requester: IsolationProbe { continuation.yield($0) })
        _ = try await manager.document(at: URL(string: "https://api.example.com/")!)
        continuation.finish()
        var onMainActor: [Bool] = []
        for await report in reports { onMainActor.append(report) }
        #expect(onMainActor == [false])
    }

    /// A model whose `Decodable` conformance is isolated to the main actor (as a plain struct's
    /// is in this mode) is shown by a `ResourceModel`, which decodes on the main actor.
    @Test func aResourceModelShowsAMainActorModel() async throws {
        struct Status: Decodable {
            let healthy: Bool
        }
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/status", json: ["_links": ["self": ["href": "/status"]], "healthy": true])
        let manager = ResourceManager(requester: requester)
        let model = ResourceModel(manager.resource(at: URL(string: "https://api.example.com/status")!), as: Status.self)
        await model.load()
        #expect(model.value?.healthy == true)
        #expect(model.error == nil)
    }
}
