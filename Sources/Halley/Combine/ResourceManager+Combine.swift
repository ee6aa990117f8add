#if HALLEY_OPENCOMBINE
    import Foundation
    import Halley
    import OpenCombine
#elseif canImport(Combine)
    import Combine
    import Foundation
    import HalleyHAL
    import HalleyTransport
#endif

#if HALLEY_OPENCOMBINE || canImport(Combine)
    // The original Halley's publishers, with its names and shapes. Each has an `async` twin of
    // the same name: a synchronous context (a view model's `load()`) gets the publisher, an
    // `async` one the `async` call. Every publisher starts its work on the first demand and
    // runs it once per subscriber; cancelling the subscription cancels every request in flight.
    extension ResourceManager {
        /// The original Halley's `request(_:)`: the resource with the request's includes,
        /// decoded once into `Item`.
        ///
        /// ```swift
        /// cancellable = resourceManager
        ///     .request(request)
        ///     .sink { _ in } receiveValue: { contact in print(contact.name) }
        /// ```
        ///
        /// Fails with the `async` call's ``HalleyError``.
        public func request<Item: Decodable>(_ request: HalleyRequest<Item>) -> AnyPublisher<Item, any Error> {
            failingPublisher { try await self.request(request) }
        }

        /// The original Halley's `requestCollection(_:)`: a collection's items, each decoded
        /// with the request's includes.
        public func requestCollection<Item: Decodable>(_ request: HalleyRequest<Item>)
            -> AnyPublisher<[Item], any Error>
        {
            failingPublisher { try await self.requestCollection(request) }
        }

        /// The original Halley's `requestPage(_:)`: one page of a collection, with its
        /// metadata and links.
        public func requestPage<Item: Decodable>(_ request: HalleyRequest<Item>)
            -> AnyPublisher<PaginationPage<Item>, any Error>
        {
            failingPublisher { try await self.requestPage(request) }
        }

        /// The original Halley's manual traversal: the resource with its includes merged, as
        /// Foundation types, published as one `Result` (the publisher never fails).
        public func resource(
            from url: URL, includes: [String] = [], options: CallOptions = .default,
            linkResolver: any LinkResolver = URLLinkResolver()
        ) -> AnyPublisher<Result<Parameters, any Error>, Never> {
            resultPublisher {
                try await self.resource(from: url, includes: includes, options: options, linkResolver: linkResolver)
            }
        }

        /// The original Halley's manual collection traversal: each item with its includes
        /// merged, published as one `Result`.
        public func resourceCollection(
            from url: URL, includes: [String] = [], options: CallOptions = .default,
            linkResolver: any LinkResolver = URLLinkResolver()
        ) -> AnyPublisher<Result<[Parameters], any Error>, Never> {
            resultPublisher {
                try await self.resourceCollection(
                    from: url, includes: includes, options: options, linkResolver: linkResolver)
            }
        }

        /// The original Halley's collection traversal with metadata: the collection's own
        /// attributes and links, its items under `_embedded.item`, published as one `Result`.
        public func resourceCollectionWithMetadata(
            from url: URL, includes: [String] = [], options: CallOptions = .default,
            linkResolver: any LinkResolver = URLLinkResolver()
        ) -> AnyPublisher<Result<Parameters, any Error>, Never> {
            resultPublisher {
                try await self.resourceCollectionWithMetadata(
                    from: url, includes: includes, options: options, linkResolver: linkResolver)
            }
        }

        // MARK: Paging

        /// ``nextPage(of:)`` as a publisher: the page after `page`, or `nil` on the last page.
        public func nextPagePublisher<Item: Decodable & Sendable>(of page: PaginationPage<Item>)
            -> AnyPublisher<PaginationPage<Item>?, any Error>
        {
            failingPublisher { try await self.nextPage(of: page) }
        }

        /// ``previousPage(of:)`` as a publisher: the page before `page`, or `nil` on the first.
        public func previousPagePublisher<Item: Decodable & Sendable>(of page: PaginationPage<Item>)
            -> AnyPublisher<PaginationPage<Item>?, any Error>
        {
            failingPublisher { try await self.previousPage(of: page) }
        }

        // MARK: Actions

        /// `send(_:to:body:options:)` as a publisher: the action's response, or its
        /// ``HalleyError``.
        public func sendPublisher(
            _ method: RequestMethod, to url: URL, body: RequestBody = .none, options: CallOptions = CallOptions()
        ) -> AnyPublisher<ActionResponse, any Error> {
            failingPublisher { try await self.send(method, to: url, body: body, options: options) }
        }

        /// `send(_:rel:of:linkName:body:options:)` as a publisher: the action on the link of
        /// `rel` on a fetched resource.
        public func sendPublisher(
            _ method: RequestMethod, rel: LinkRelation, of resource: HALResource, linkName: String? = nil,
            body: RequestBody = .none, options: CallOptions = CallOptions()
        ) -> AnyPublisher<ActionResponse, any Error> {
            failingPublisher {
                try await self.send(method, rel: rel, of: resource, linkName: linkName, body: body, options: options)
            }
        }
    }

    extension FollowChain {
        /// ``get(includes:)`` as a publisher: the resource at the end of the chain.
        public func getPublisher(includes: [Include] = []) -> AnyPublisher<JSONValue, any Error> {
            failingPublisher { try await self.get(includes: includes) }
        }

        /// ``get(_:includes:decoder:)`` as a publisher: the resource at the end of the chain,
        /// decoded as `type`.
        public func getPublisher<Item: Decodable>(
            _ type: Item.Type, includes: [Include] = [], decoder: JSONDecoder? = nil
        ) -> AnyPublisher<Item, any Error> {
            failingPublisher { try await self.get(type, includes: includes, decoder: decoder) }
        }

        /// ``page(of:includes:decoder:)`` as a publisher: the page at the end of the chain.
        public func pagePublisher<Item: Decodable>(
            of type: Item.Type, includes: [Include] = [], decoder: JSONDecoder? = nil
        ) -> AnyPublisher<PaginationPage<Item>, any Error> {
            failingPublisher { try await self.page(of: type, includes: includes, decoder: decoder) }
        }

        /// ``resource()`` as a publisher: the HAL resource at the end of the chain.
        public func resourcePublisher() -> AnyPublisher<HALResource, any Error> {
            failingPublisher { try await self.resource() }
        }

        /// ``send(_:body:)`` as a publisher: an action where the chain ends.
        public func sendPublisher(_ method: RequestMethod, body: RequestBody = .none)
            -> AnyPublisher<ActionResponse, any Error>
        {
            failingPublisher { try await self.send(method, body: body) }
        }
    }

    extension PagedItems {
        /// The items as a publisher that honours demand: a page is fetched only when the
        /// subscriber wants its items, and cancelling stops the paging and its request in
        /// flight.
        ///
        /// ```swift
        /// cancellable = manager.items(Contact.self, from: "https://api.example.com/contacts")
        ///     .publisher
        ///     .sink { completion in … } receiveValue: { contact in … }
        /// ```
        public var publisher: AnyPublisher<Item, any Error> {
            SequencePublisher(base: self).eraseToAnyPublisher()
        }
    }
#endif
