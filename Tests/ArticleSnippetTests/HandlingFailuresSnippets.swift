// swift-format-ignore-file
// HandlingFailures.md's "What an app shows" block, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds it to the article), and a test that runs it: a problem's title is
// what the screen shows, and a cancelled load shows nothing.
import Foundation
import Halley
import Testing

// snippet HandlingFailures.md "What an app shows"
@MainActor final class OrderScreen {
    var order: JSONValue?
    var problem: (message: String, advice: String?)?   // shown with Text(...) in an alert

    func load(_ url: URL, with manager: ResourceManager) async {   // from the view's .task
        do {
            order = try await manager.resource(from: url)
            problem = nil
        } catch is CancellationError {
            // The view went away: nothing to show.
        } catch {
            problem = (error.localizedDescription, (error as? LocalizedError)?.recoverySuggestion)
            print(error)   // the developer's sentence, URL and body excerpt included, for the log
        }
    }
}
// end snippet

@Suite struct HandlingFailuresSnippetTests {
    @MainActor @Test func theScreenShowsTheProblemsTitleAndNothingWhenCancelled() async throws {
        let requester = InMemoryRequester()
        let url = URL(string: "https://api.example.com/orders/7?expand=items")!
        await requester.register(
            url.absoluteString,
            .init(
                status: 409, headers: ["Content-Type": "application/problem+json"],
                body: Data(#"{"title": "Out of stock", "status": 409}"#.utf8)))
        await requester.register("https://api.example.com/slow", json: ["x": 1], latency: .seconds(30))
        let manager = ResourceManager(requester: requester)

        let screen = OrderScreen()
        await screen.load(url, with: manager)
        #expect(screen.problem?.message == "The request to api.example.com failed: Out of stock.")
        #expect(screen.problem?.advice == "Reload and try again.")

        let cancelled = OrderScreen()
        let task = Task { await cancelled.load(URL(string: "https://api.example.com/slow")!, with: manager) }
        task.cancel()
        await task.value
        #expect(cancelled.problem == nil && cancelled.order == nil)
    }
}
