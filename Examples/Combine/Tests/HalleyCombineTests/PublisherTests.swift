import Dispatch
import Foundation
import Halley
import HalleyCombine
import HalleyTesting
import OpenCombine
import OpenCombineDispatch
import Testing

/// The publishers of Sources/Halley/Combine, compiled against OpenCombine: values, typed
/// failures, cancellation reaching the requester, `receive(on:)` and demand.
@Suite struct PublisherTests {
    static let api = "https://combine.example"

    /// A manager over a declared API in memory: contacts, a collection of two with a count,
    /// six contacts in pages of two, an entry point and an action; each test its own prefix.
    static func manager(_ prefix: String) -> (ResourceManager, StubAPI) {
        let api = StubAPI()
        let base = "/\(prefix)"
        let ann = api.resource("\(base)/contacts/1", StubResource(["id": "1", "name": "Ann"]))
        let bob = api.resource("\(base)/contacts/2", StubResource(["id": "2", "name": "Bob"]))
        api.collection("\(base)/contacts", items: [ann, bob], properties: ["count": 2])
        let paged = (0..<6).map { StubResource(["id": .string("\($0)"), "name": .string("P\($0)")]) }
        api.collection("\(base)/pages", items: paged, pageSize: 2)
        api.resource(
            "\(base)/", StubResource().link("contacts", "\(base)/contacts").link("first", "\(base)/contacts/1"))
        api.respond(
            to: .post, "\(base)/orders", with: StubResponse(status: 201, headers: ["Location": "\(base)/orders/7"]))
        return (ResourceManager(requester: api.requester), api)
    }

    // MARK: Values and failures

    @Test func requestPublishesTheDecodedItemAndFinishes() async throws {
        let (manager, _) = Self.manager("request")
        let request = HalleyRequest<Contact>(url: "\(Self.api)/request/contacts/1")
        let outcome = await Outcome.of(manager.request(request).map(\.name))
        #expect(outcome.values == ["Ann"])
        #expect(outcome.finished)
    }

    @Test func requestCollectionAndPagePublishTheItems() async throws {
        let (manager, _) = Self.manager("collection")
        let request = HalleyRequest<Contact>(url: "\(Self.api)/collection/contacts")
        let collection = await Outcome.of(manager.requestCollection(request).map { $0.map(\.name) })
        #expect(collection.values == [["Ann", "Bob"]])
        let page = await Outcome.of(manager.requestPage(request).map { $0.items.map(\.id) })
        #expect(page.values == [["1", "2"]])
        #expect(page.finished)
    }

    @Test func aFailedRequestFailsWithTheAsyncCallsError() async throws {
        let (manager, _) = Self.manager("failure")
        let request = HalleyRequest<Contact>(url: "\(Self.api)/failure/contacts/404")
        let outcome = await Outcome.of(manager.request(request).map(\.name))
        #expect(outcome.values.isEmpty)
        let error = try #require(outcome.failure as? HalleyError)
        #expect(error.code == .http)
        #expect(error.httpError?.status == 404)
    }

    @Test func manualTraversalPublishesOneResultAndNeverFails() async throws {
        let (manager, _) = Self.manager("manual")
        let url = URL(string: "\(Self.api)/manual/contacts/1")!
        let resource = await Outcome.of(
            manager.resource(from: url, includes: [], options: .default, linkResolver: URLLinkResolver())
                .map { result in result.map { $0["name"] as? String } })
        #expect(try resource.values.map { try $0.get() } == ["Ann"])
        #expect(resource.finished)

        let collectionURL = URL(string: "\(Self.api)/manual/contacts")!
        let collection = await Outcome.of(
            manager.resourceCollection(from: collectionURL).map { result in
                result.map { $0.compactMap { $0["name"] as? String } }
            })
        #expect(try collection.values.map { try $0.get() } == [["Ann", "Bob"]])
        let metadata = await Outcome.of(
            manager.resourceCollectionWithMetadata(from: collectionURL).map { result in
                result.map { $0["count"] as? Int }
            })
        #expect(try metadata.values.map { try $0.get() } == [2])

        // A failure is a `.failure` value, then the publisher finishes: `Never` fails.
        let missing = URL(string: "\(Self.api)/manual/contacts/404")!
        let failed = await Outcome.of(
            manager.resource(from: missing).map { result in result.map { $0["name"] as? String } })
        #expect(failed.finished)
        let error = try #require(
            failed.values.first.flatMap { result -> (any Error)? in
                if case .failure(let error) = result { return error }
                return nil
            })
        #expect((error as? HalleyError)?.code == .http)
    }

    @Test func theAsyncCallsOfTheSameNamesStillWorkInAsyncContexts() async throws {
        let (manager, _) = Self.manager("async")
        let request = HalleyRequest<Contact>(url: "\(Self.api)/async/contacts/1")
        let contact = try await manager.request(request)
        #expect(contact.name == "Ann")
        let url = URL(string: "\(Self.api)/async/contacts/1")!
        let dict = try await manager.resource(
            from: url, includes: [], options: .default, linkResolver: URLLinkResolver())
        #expect(dict["name"] as? String == "Ann")
        // Without a link resolver, the `async` call of the engine: a `JSONValue`.
        let json = try await manager.resource(from: url)
        #expect(json["name"]?.stringValue == "Ann")
    }

    // MARK: Follow chains, actions, paging

    @Test func followChainAndActionPublishers() async throws {
        let (manager, api) = Self.manager("chain")
        let chain = manager.entry("\(Self.api)/chain/").follow("first")
        let name = await Outcome.of(chain.getPublisher().map { $0["name"]?.stringValue })
        #expect(name.values == ["Ann"])
        let typed = await Outcome.of(chain.getPublisher(Contact.self).map(\.id))
        #expect(typed.values == ["1"])
        let resource = await Outcome.of(chain.resourcePublisher().map { $0.links.selfLink?.href })
        #expect(resource.values == ["/chain/contacts/1"])
        let page = await Outcome.of(
            manager.entry("\(Self.api)/chain/").follow("contacts").pagePublisher(of: Contact.self).map {
                $0.items.map(\.name)
            })
        #expect(page.values == [["Ann", "Bob"]])

        let created = await Outcome.of(
            manager.sendPublisher(.post, to: URL(string: "\(Self.api)/chain/orders")!, body: .json(["item": "book"]))
                .map { $0.location?.absoluteString })
        #expect(created.values == ["\(Self.api)/chain/orders/7"])
        #expect(api.requests(to: "/chain/orders", method: .post).count == 1)
    }

    @Test func nextAndPreviousPagePublishers() async throws {
        let (manager, _) = Self.manager("adjacent")
        let first = try await manager.requestPage(HalleyRequest<Contact>(url: "\(Self.api)/adjacent/pages"))
        let next = await Outcome.of(manager.nextPagePublisher(of: first).map { $0?.items.map(\.id) })
        #expect(next.values == [["2", "3"]])
        let before = await Outcome.of(manager.previousPagePublisher(of: first).map { $0?.items.map(\.id) })
        #expect(before.values == [nil])
    }

    @Test func pagedItemsPublishAllItemsThenFinish() async throws {
        let (manager, api) = Self.manager("paged")
        let items = manager.items(Contact.self, from: "\(Self.api)/paged/pages")
        let outcome = await Outcome.of(items.publisher.map(\.id))
        #expect(outcome.values == ["0", "1", "2", "3", "4", "5"])
        #expect(outcome.finished)
        #expect(api.requests.count == 3)
    }

    @Test func pagedItemsFetchOnlyThePagesTheDemandNeeds() async throws {
        let (manager, api) = Self.manager("demand")
        let items = manager.items(Contact.self, from: "\(Self.api)/demand/pages")
        let received = Guarded<[String]>([])
        let subscription = SubscriptionKeeper()
        let done = AsyncFlag()
        items.publisher.subscribe(
            AnySubscriber<Contact, any Error>(
                receiveSubscription: {
                    subscription.subscription = $0
                    $0.request(.max(3))
                },
                receiveValue: { contact in
                    if received.mutate({
                        $0.append(contact.id)
                        return $0.count
                    }) == 3 {
                        done.raise()
                    }
                    return .none
                },
                receiveCompletion: { _ in done.raise() }))
        await done.wait()
        // Three items asked for: the first two pages, not the third.
        #expect(received.current == ["0", "1", "2"])
        #expect(api.requestLines == ["GET /demand/pages", "GET /demand/pages?page=1&size=2"])
        subscription.subscription?.cancel()
    }

    // MARK: Cancellation and scheduling

    @Test func cancellingTheCancellableCancelsEveryRequestInFlight() async throws {
        let requester = HangingRequester(
            answering: [
                "\(Self.api)/hang/contacts/1": #"""
                {"id": "1", "name": "Ann", "_links": {"contacts": [
                    {"href": "\#(Self.api)/hang/contacts/2"}, {"href": "\#(Self.api)/hang/contacts/3"},
                    {"href": "\#(Self.api)/hang/contacts/4"}]}}
                """#
            ])
        let manager = ResourceManager(requester: requester)
        let delivered = Guarded(0)
        let cancellable = manager.resource(from: URL(string: "\(Self.api)/hang/contacts/1")!, includes: ["[contacts]"])
            .sink { _ in
                delivered.mutate { $0 += 1 }
            } receiveValue: { _ in
                delivered.mutate { $0 += 1 }
            }
        // The three relationships are in flight at once, each waiting for an answer.
        try await requester.started.wait(until: { $0.count == 3 })
        cancellable.cancel()
        try await requester.cancelled.wait(until: { $0.count == 3 })
        #expect(Set(requester.cancelled.current) == Set(requester.started.current))
        #expect(delivered.current == 0)
    }

    @Test func cancellationReachesTheReadmeRequestersContainer() async throws {
        let url = "\(Self.api)/readme-cancel/contacts/1"
        let manager = ResourceManager(requester: AlamofireRequester())
        let cancellable = manager.request(HalleyRequest<Contact>(url: url)).sink { _ in
        } receiveValue: { _ in
        }
        try await StubNetwork.started.wait(until: { $0.contains(url) })
        cancellable.cancel()
        // The manager calls the README's `RequestContainer.cancelRequest()`, which cancels
        // the Alamofire request.
        try await StubNetwork.cancelled.wait(until: { $0.contains(url) })
    }

    @Test func releasingTheCancellableCancelsToo() async throws {
        let requester = HangingRequester(answering: [:])
        let manager = ResourceManager(requester: requester)
        var cancellable: AnyCancellable? = manager.resource(from: URL(string: "\(Self.api)/release/1")!)
            .sink { _ in }
        try await requester.started.wait(until: { $0.count == 1 })
        #expect(cancellable != nil)
        cancellable = nil
        try await requester.cancelled.wait(until: { $0.count == 1 })
    }

    @Test func receiveOnDeliversOnTheGivenScheduler() async throws {
        let (manager, _) = Self.manager("receive")
        let queue = DispatchQueue(label: "halley.combine.receive")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "receive")
        let request = HalleyRequest<Contact>(url: "\(Self.api)/receive/contacts/1")
        let outcome = await Outcome.of(
            manager.request(request)
                .receive(on: queue.ocombine)
                .map { ($0.name, DispatchQueue.getSpecific(key: key)) }
                .map { "\($0.0) on \($0.1 ?? "another queue")" })
        #expect(outcome.values == ["Ann on receive"])
        #expect(outcome.finished)
    }

    // MARK: The README's snippets

    @Test func theReadmeSnippetsRunAsWritten() async throws {
        // The first sinks with `_ =`: its cancellable is released at once, which cancels it.
        #expect(readmeTraversingSnippet().isEmpty)
        let cancellables = readmeManualTraversingSnippet()
        #expect(cancellables.count == 1)
        // Its URL ("https//www.example.com/…", no colon) is not absolute: the same call
        // shape publishes that failure as a value.
        let outcome = await Outcome.of(
            ResourceManager(requester: AlamofireRequester())
                .resource(
                    from: URL(string: "https//www.example.com/contact/1")!, includes: ["website"], options: .default,
                    linkResolver: TemplateLinkResolver(parameters: [:])
                )
                .map { result -> String in
                    if case .failure(let error as HalleyError) = result { return error.code.rawValue }
                    return "not a Halley error"
                })
        #expect(outcome.values == ["unsupportedScheme"] || outcome.values == ["invalidURL"])
    }
}
