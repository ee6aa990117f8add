import Foundation
import Halley
import Testing

/// `PagedItems` used where an app uses it: on the main actor, with a non-`Sendable` model and
/// closures that touch main-actor state. Each call below was "sending value of non-Sendable
/// type … risks causing data races" with the standard library's `AsyncSequence` operations,
/// whose closures leave the caller's actor: this file not compiling is the failure.
@Suite struct PagedItemsIsolationTests {
    /// Not `Sendable`, as most app models are not.
    final class Contact: Decodable {
        let n: Int
    }

    /// Main-actor state the closures write to, as a view model's would be.
    @MainActor final class Screen {
        var seen: [Int] = []
    }

    /// Five pages of two contacts (n = 0...9) behind `next` links, without page metadata.
    private static func fivePages() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        for page in 0..<5 {
            let items: [JSONValue] = (0..<2).map { offset in
                let n = page * 2 + offset
                return ["_links": ["self": ["href": .string("/contacts/\(n)")]], "n": .int(n)]
            }
            var links: JSONObject = ["self": ["href": .string("/contacts?page=\(page)")]]
            if page < 4 { links["next"] = ["href": .string("/contacts?page=\(page + 1)")] }
            await requester.register(
                "https://api.example.com/contacts?page=\(page)",
                json: ["_links": .object(links), "_embedded": ["item": .array(items)]])
        }
        return requester
    }

    private static func contacts(_ requester: InMemoryRequester) -> PagedItems<Contact> {
        ResourceManager(requester: requester).items(
            Contact.self, from: URL(string: "https://api.example.com/contacts?page=0")!)
    }

    private static func pagesRequested(_ requester: InMemoryRequester) async -> [String] {
        await requester.requests.map { $0.url.query ?? "" }
    }

    @MainActor @Test func prefixAndReduceIntoRunOnTheMainActorAndStopTheRequests() async throws {
        let requester = await Self.fivePages()
        let screen = Screen()
        // The paging guide's line, in main-actor code.
        let firstTwo = try await Self.contacts(requester).prefix(2).reduce(into: []) { $0.append($1) }
        #expect(firstTwo.map(\.n) == [0, 1])
        let firstThree = try await Self.contacts(requester).prefix(3).reduce(into: [Contact]()) {
            $0.append($1)
            screen.seen.append($1.n)
        }
        #expect(firstThree.map(\.n) == [0, 1, 2])
        #expect(screen.seen == [0, 1, 2])
        #expect(await Self.pagesRequested(requester) == ["page=0", "page=0", "page=1"])
    }

    @MainActor @Test func theClosureOperationsRunOnTheMainActor() async throws {
        let requester = await Self.fivePages()
        let contacts = Self.contacts(requester)
        let screen = Screen()
        let sum = try await contacts.reduce(0) { total, contact in
            screen.seen.append(contact.n)
            return total + contact.n
        }
        #expect(sum == 45)
        #expect(screen.seen == Array(0..<10))

        let fifth = try await contacts.first { $0.n == 4 && !screen.seen.isEmpty }
        #expect(fifth?.n == 4)
        #expect(try await contacts.first(where: { $0.n == 42 }) == nil)
        #expect(try await contacts.contains { $0.n == 7 })
        #expect(try await !contacts.contains(where: { $0.n < 0 }))
        #expect(try await contacts.allSatisfy { $0.n < 10 })
        #expect(try await !contacts.allSatisfy { $0.n < 5 })
        #expect(try await contacts.min { $0.n < $1.n }?.n == 0)
        #expect(try await contacts.max(by: { $0.n < $1.n })?.n == 9)
        #expect(try await contacts.prefix(0).max(by: { $0.n < $1.n }) == nil)
    }

    @MainActor @Test func minAndMaxReturnTheFirstOfEqualItemsAsTheStandardLibraryDoes() async throws {
        let contacts = Self.contacts(await Self.fivePages())
        let byPair = { (a: Contact, b: Contact) in a.n / 2 < b.n / 2 }
        #expect(try await contacts.min(by: byPair)?.n == Array(0..<10).min(by: { $0 / 2 < $1 / 2 }))
        #expect(try await contacts.max(by: byPair)?.n == Array(0..<10).max(by: { $0 / 2 < $1 / 2 }))
        #expect(try await contacts.min(by: byPair)?.n == 0)
        #expect(try await contacts.max(by: byPair)?.n == 8)
    }

    @MainActor @Test func firstWhereStopsAtThePageHoldingTheItem() async throws {
        let requester = await Self.fivePages()
        let third = try await Self.contacts(requester).first { $0.n == 2 }
        #expect(third?.n == 2)
        #expect(await Self.pagesRequested(requester) == ["page=0", "page=1"])
    }

    @MainActor @Test func aLoopOnTheMainActorReadsEveryPage() async throws {
        let requester = await Self.fivePages()
        let screen = Screen()
        for try await contact in Self.contacts(requester).prefetching() {
            screen.seen.append(contact.n)
        }
        #expect(screen.seen == Array(0..<10))
    }

    /// `prefix` is the sequence with a lower item limit: it never raises one, and random access
    /// ends where the sequence does.
    @Test func prefixIsAnItemLimit() async throws {
        let requester = await Self.fivePages()
        let contacts = Self.contacts(requester)
        #expect(try await contacts.prefix(3).prefix(5).collect().map(\.n) == [0, 1, 2])
        #expect(try await contacts.limited(toItems: 4).prefix(6).collect().map(\.n) == [0, 1, 2, 3])
        #expect(try await contacts.prefix(-1).collect().isEmpty)
        #expect(try await contacts.prefix(3).item(at: 2)?.n == 2)
        #expect(try await contacts.prefix(3).item(at: 3) == nil)
        #expect(try await contacts.prefix(3).items(in: 1..<8).map(\.n) == [1, 2])
        #expect(try await contacts.limited(toItems: 3).items(in: 5..<8).isEmpty)
    }
}
