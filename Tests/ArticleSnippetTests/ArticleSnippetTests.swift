import Foundation
import Halley
import Testing

/// Runs the articles' blocks that take their manager from the reader, against the sample API
/// in `Fixtures/api` or the in-memory shop, and checks what the articles say they return.
/// Blocks that build a `URLSessionRequester` are compiled, not run.
@Suite(.serialized) struct ArticleSnippetTests {
    let fixtures = ArticleAPIs.fixtureManager()

    // MARK: Getting started

    @Test func gettingStartedFetchesAdaWithHerRelationships() async throws {
        let (name, site, gracesSite) = try await gettingStartedFetch(manager: fixtures)
        #expect(name == "Ada Lovelace")
        #expect(site == "https://ada.example.com")
        #expect(gracesSite == "https://grace.example.com")
        // "The call sends six requests".
        let result = try await fixtures.traverse(
            URL(string: "https://api.example.com/contacts/1")!, includes: ["[contacts].website", "website"])
        #expect(result.requestCount == 6)
    }

    @Test func theLandingPageExampleDecodesTheSampleAPI() async throws {
        let ada = try await landingPageOverview(manager: fixtures)
        #expect(ada.id == 1)
        #expect(ada.website?.url.absoluteString == "https://ada.example.com")
        #expect(ada.contacts?.map(\.name) == ["Grace Hopper", "Alan Turing"])
        #expect(ada.contacts?.map { $0.website?.id } == [2, 3])
    }

    @Test func theFixtureFilesExampleDecodesTheSampleAPI() async throws {
        let ada = try await testingFixtureFiles(manager: fixtures)
        #expect(ada.name == "Ada Lovelace")
        #expect(ada.contacts?.last?.website?.url.absoluteString == "https://alan.example.com")
    }

    @Test func gettingStartedDecodesIntoPlainDecodables() async throws {
        let (gracesWebsite, gracesOwnWebsite, alan, email) = try await gettingStartedDecode(manager: fixtures)
        #expect(gracesWebsite?.absoluteString == "https://grace.example.com")
        #expect(gracesOwnWebsite == nil, "nothing included")
        #expect(alan == "Alan Turing")
        #expect(email == "ada@example.com", "HalleyRequest(url: URL(...)) reaches Ada")
    }

    @Test func gettingStartedFailureNamesTheRelationship() async throws {
        let error = try #require(try await gettingStartedFailure(manager: fixtures))
        #expect(error.code == .http)
        #expect(error.includePath == "manager")
        #expect(error.url?.absoluteString == "https://api.example.com/contacts/99")
        #expect(error.httpError?.status == 404)
        #expect("\(error.code)" == "http")
    }

    /// Run in the test's own isolation: nonisolated here, the main actor where
    /// Tools/MainActorApp builds this file as an app target.
    @Test func gettingStartedAppTargetScreenLoadsAda() async throws {
        let screen = MemberScreen()
        try await screen.load(fixtures)
        #expect(screen.name == "Ada Lovelace")
    }

    // MARK: Typed models

    @Test func typedModelsFetchTheSmallAvatar() async throws {
        let avatar = try await typedModelsFetch(manager: fixtures)
        #expect(avatar?.absoluteString == "https://cdn.example.com/avatars/ada-32.png")
    }

    @Test func typedModelsThreeWaysAreOnePlan() async throws {
        let (samePlan, named, fields, paths) = try typedModelsThreeWays()
        #expect(samePlan)
        #expect(try fields.includePlan() == paths.includePlan())
        let ada = try await fixtures.request(named)
        #expect(ada.website?.id == 1)
        #expect(
            ada.contacts?.map { $0.website?.url.absoluteString } == [
                "https://grace.example.com", "https://alan.example.com",
            ])
    }

    @Test func typedModelsTemplateValuesPickTheAvatar() async throws {
        let (small, standard) = typedModelsTemplateValues()
        #expect(try await fixtures.request(small).avatar?.size == "small")
        #expect(try await fixtures.request(standard).avatar?.size == "medium")
    }

    @Test func typedModelsDecoderIsTheManagers() {
        let configuration = typedModelsDecoding()
        guard case .convertFromSnakeCase = configuration.decoder.keyDecodingStrategy else {
            Issue.record("the key strategy is not set")
            return
        }
    }

    // MARK: String include paths

    @Test func includePathsWithValuesReachNamedLinksAndTemplates() async throws {
        let (grace, avatarSize) = try await includePathsWithValues(manager: fixtures)
        #expect(grace == "Grace Hopper")
        #expect(avatarSize == "small")
    }

    @Test func includePathsMalformedNameTheOffset() throws {
        let error = try #require(includePathsMalformed())
        #expect(error.code == .unclosedBracket)
        #expect(error.path == "[contacts")
        #expect(error.offset == 9)
    }

    @Test func includePathsPartialKeepsWhatSucceeded() async throws {
        let (result, websites) = try await includePathsPartial(manager: fixtures)
        #expect(result.failures.map(\.includePath) == ["[contacts].manager"])
        #expect(result.failures.first?.url?.absoluteString == "https://api.example.com/contacts/99")
        #expect(result.failures.first?.code == .http)
        #expect(websites == ["https://grace.example.com", "https://alan.example.com"])
    }

    // MARK: Paging

    @Test func pagingPageAtATimeReadsEveryPage() async throws {
        #expect(try await pagingPageAtATime(manager: fixtures) == ["Ada Lovelace", "Grace Hopper", "Alan Turing"])
    }

    @Test func pagingSequenceWalksNextLinks() async throws {
        #expect(try await pagingSequence(manager: fixtures) == ["Ada Lovelace", "Grace Hopper", "Alan Turing"])
    }

    @Test func pagingShapingLimitsTheSequence() async throws {
        let result = try await pagingShaping(manager: fixtures)
        #expect(result.first.map(\.id) == [1, 2])
        #expect(result.page.map(\.id) == [1, 2])
        #expect(result.two.map(\.id) == [1, 2, 3])
        #expect(result.ahead.map(\.id) == [1, 2, 3])
    }

    @Test func pagingRandomAccessFetchesOnlyThePagesItNeeds() async throws {
        let shop = await ArticleAPIs.shop()
        let result = try await pagingRandomAccess(manager: ResourceManager(requester: shop))
        #expect(result.first == 1)
        #expect(result.last == 95)
        #expect(result.beyond == nil)
        #expect(result.slice == Array(26...35))
        #expect(result.lastTen == Array(86...95))
        let pages = await shop.requestedURLs.map {
            $0.replacingOccurrences(of: "https://shop.example.com/orders", with: "")
        }
        #expect(
            pages == [
                "?page=0&size=10",  // item(at: 0)
                "?page=9&size=10",  // item(at: 94)
                "?page=9&size=10",  // item(at: 95)
                "?page=2&size=10", "?page=3&size=10",  // items(in: 25..<35)
                "?page=0&size=10", "?page=8&size=10", "?page=9&size=10",  // fromURL.items(in: 85..<95)
            ])
    }

    @Test func pagingMismatchThrows() async throws {
        let manager = ResourceManager(requester: await ArticleAPIs.shop())
        let error = try #require(try await pagingMismatch(manager: manager))
        #expect(error.message == "asked for page 4 of size 10 but the server answered page 0 of size 10")
    }

    @Test func pagingNumberingIsSettable() {
        let (page, size, first) = pagingNumbering(manager: fixtures)
        #expect(page == "p" && size == "per_page" && first == 1)
    }

    @Test func pagingFromAChain() async throws {
        let (page, everyone) = try await pagingFromChain(manager: fixtures)
        #expect(page.items.count == 2)
        #expect(page.next != nil)
        #expect(everyone.map(\.name) == ["Ada Lovelace", "Grace Hopper", "Alan Turing"])
    }

    // MARK: Follow chains and actions

    @Test func followRelsReachGraceAndTheStatus() async throws {
        let (grace, avatar, healthy, api) = try await followRels(manager: fixtures)
        #expect(grace.name == "Grace Hopper")
        #expect(grace.website?.url.absoluteString == "https://grace.example.com")
        #expect(avatar.absoluteString == "https://api.example.com/contacts/1/avatar?size=small")
        #expect(healthy == true)
        let error = try #require(try await followMissing(api: api))
        #expect(error.message == "hop 2 (manager) is not in the resource; available rels: self, contacts, website")
    }

    @Test func followChainsFollowLinksOfTheLinkHeader() async throws {
        let (link, fromHeader, customer) = try await followLinkHeader(
            manager: ResourceManager(requester: await ArticleAPIs.shop()))
        #expect(link?.href == "https://shop.example.com/customers/3")
        #expect(link?.title == "Ad\u{E0}")
        #expect(fromHeader == 1)
        #expect(customer["name"] == "Ad\u{E0}")
    }

    @Test func followSDKWrapsChains() async throws {
        let (alan, names) = try await followSDK(manager: fixtures)
        #expect(alan.name == "Alan Turing")
        #expect(names == ["Ada Lovelace", "Grace Hopper", "Alan Turing"])
    }

    @Test func actions() async throws {
        let shop = await ArticleAPIs.shop()
        let result = try await followActions(manager: ResourceManager(requester: shop))
        #expect(result.status == 201)
        #expect(result.location.absoluteString == "https://shop.example.com/orders/42")
        #expect(result.receipt?.state["status"] == "created")
        #expect(result.renamed == "renamed")
        let sent = await shop.requests.map { "\($0.method) \($0.url.path)" }
        #expect(
            sent == [
                "POST /orders", "GET /orders/42", "POST /orders/42/payment", "PUT /orders/42", "DELETE /orders/42",
            ])
    }

    // MARK: Request policy

    @Test func policyCallOptionsReplaceTheManagers() {
        let options = policyCredentials(token: "abc", apiKey: "k")
        var configuration = ResourceManager.Configuration()
        configuration.requestTimeout = .seconds(10)
        configuration.retryPolicy = .standard
        var call = CallOptions()
        call.requestTimeout = .seconds(2)
        call.retryPolicy = RetryPolicy.none
        let merged = configuration.policy.merged(with: call.policy)
        #expect(merged.requestTimeout == .seconds(2))
        #expect(merged.retryPolicy == RetryPolicy.none)
        #expect(options.credentialHeaders == ["X-Api-Key"])
        #expect(options.headers["Authorization"] == "Bearer abc")
    }

    @Test func policyRefreshesTheTokenOnceAndRetries() async throws {
        let (configuration, tokens) = policyRefresh()
        let requester = InMemoryRequester()
        await requester.register("https://shop.example.com/status") { request in
            guard request.headers["Authorization"] == "Bearer fresh" else {
                return ArticleAPIs.response(401, for: request)
            }
            return ArticleAPIs.response(200, for: request, body: ["_links": ["self": ["href": "/status"]]])
        }
        let manager = ResourceManager(requester: requester, configuration: configuration)
        _ = try await manager.document(at: URL(string: "https://shop.example.com/status")!)
        #expect(await tokens.refreshes == 1)
        #expect(await requester.requests.map { $0.headers["Authorization"] } == ["Bearer expired", "Bearer fresh"])
    }

    @Test func policyRetriesAndValidation() async throws {
        let retries = policyRetries().retryPolicy
        #expect(retries.maxAttempts == 5)
        #expect(retries.retryableMethods.contains(.post))

        let url = URL(string: "https://shop.example.com/status")!
        let saved = Data(#"{"_links":{"self":{"href":"/status"}},"saved":true}"#.utf8)
        let configuration = policyValidationAndFallback(savedCopies: [url: saved])
        let requester = InMemoryRequester()
        await requester.register("https://shop.example.com/unlinked", json: ["healthy": true])
        await requester.register(url.absoluteString) { _ in throw URLError(.notConnectedToInternet) }
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let fallback = try await manager.document(at: url)
        #expect(fallback.state["saved"] == true)
        await #expect(throws: HalleyError.self) {
            try await manager.document(at: URL(string: "https://shop.example.com/unlinked")!)
        }
    }

    @Test func policyCacheServesFreshResponses() async throws {
        var configuration = policyCaching()
        configuration.observer = policyObserving().observer
        let requester = InMemoryRequester()
        await requester.register(
            "https://shop.example.com/status",
            .init(
                headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=60"],
                body: Data(#"{"_links":{"self":{"href":"/status"}}}"#.utf8)))
        let manager = ResourceManager(requester: requester, configuration: configuration)
        for _ in 0..<2 { _ = try await manager.document(at: URL(string: "https://shop.example.com/status")!) }
        #expect(await requester.requestCount == 1)
    }

    // MARK: Server-side Swift

    @Test func serverSideCacheKeepsUsersApart() async throws {
        var configuration = serverSideManager().configuration
        configuration.credentialHeaders.formUnion(serverSideCredentialHeader().credentialHeaders)
        #expect(configuration.templateVariables == nil)
        #expect(configuration.credentialHeaders.contains("X-Api-Key"))
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/contacts/1") { request in
            let user = request.headers["Authorization"] ?? "nobody"
            var response = ArticleAPIs.response(
                200, for: request, body: ["_links": ["self": ["href": "/contacts/1"]], "seenBy": .string(user)])
            response.headers["Cache-Control"] = "max-age=60"
            return response
        }
        let service = ProfileService(upstream: ResourceManager(requester: requester, configuration: configuration))
        let contact = URL(string: "https://api.example.com/contacts/1")!
        let ann = try await service.profile(bearer: "ann", of: contact)
        let bob = try await service.profile(bearer: "bob", of: contact)
        let annAgain = try await service.profile(bearer: "ann", of: contact)
        #expect(ann["seenBy"] == "Bearer ann")
        #expect(bob["seenBy"] == "Bearer bob")
        #expect(annAgain["seenBy"] == "Bearer ann")
        #expect(await requester.requestCount == 2, "ann's second call is served from the cache")
    }

    @Test func serverSideTimedRequesterRecords() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/", json: ["_links": ["self": ["href": "/"]]])
        let (durations, continuation) = AsyncStream.makeStream(of: Duration.self)
        let manager = ResourceManager(
            requester: TimedRequester(base: requester) { _, duration in continuation.yield(duration) })
        _ = try await manager.document(at: URL(string: "https://api.example.com/")!)
        continuation.finish()
        var count = 0
        for await _ in durations { count += 1 }
        #expect(count == 1)
        #expect(serverSideTimed().resourceRequester is TimedRequester<URLSessionRequester>)
    }

    // MARK: Testing

    @Test func testingScriptedRetry() async throws {
        let (status, requester) = try await testingScripted()
        #expect(status.state["healthy"] == true)
        #expect(await requester.requestCount == 2)
    }

    @Test func testingEventsAreCollected() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/status", json: ["_links": ["self": ["href": "/status"]]])
        let finished = try await testingEvents(manager: ResourceManager(requester: requester))
        #expect(finished.map(\.status) == [200])
    }

    // MARK: Performance and limits

    @Test func performanceLimitsAreSet() async throws {
        let (options, contacts) = performanceLimits(manager: fixtures)
        #expect(options.maxRequests == 200)
        #expect(options.parsing.json.maximumDepth == 64)
        #expect(contacts.maxPages == 100)
        #expect(try await contacts.collect().count == 3)
    }
}
