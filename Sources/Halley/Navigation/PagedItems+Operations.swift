import Foundation

// The standard library's `AsyncSequence` operations that take a closure (`reduce`,
// `first(where:)`, `contains(where:)`, ...) are plain `nonisolated` async functions: called from
// the main actor, they send the caller's closure to another executor, which Swift 6 refuses
// for any closure that is not `@Sendable` ("sending value of non-Sendable type … risks causing
// data races"), whatever the sequence. These versions run where their caller runs (the
// `#isolation` parameter), so a SwiftUI view model or top-level code can write
// `items.prefix(10).reduce(into: []) { $0.append($1) }`. They take synchronous closures, which
// is what such calls pass; an `async` closure still reaches the standard library's version.
// `prefix(_:)` returns a `PagedItems`, so these stay reachable after it (and it stops the
// requests as `limited(toItems:)` does).

extension PagedItems {
    /// The first `maxLength` items (fewer when the collection ends first): the sequence with
    /// its item limit lowered to `maxLength`, so no page past them is requested.
    ///
    /// A `PagedItems` rather than the standard library's `AsyncPrefixSequence`, so the
    /// operations below (which run on the caller's actor) and random access still apply.
    /// A negative `maxLength` counts as 0.
    public func prefix(_ maxLength: Int) -> PagedItems {
        var copy = self
        copy.itemLimit = Swift.min(itemLimit ?? .max, Swift.max(0, maxLength))
        return copy
    }

    /// Combines the items with `nextPartialResult`, which runs on the caller's actor.
    ///
    /// - Parameters:
    ///   - initialResult: The value to start from.
    ///   - isolation: Where `nextPartialResult` runs; the caller's actor by default.
    ///   - nextPartialResult: Combines the result so far with the next item.
    /// - Returns: The final result; `initialResult` when there are no items.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    public func reduce<Result>(
        _ initialResult: Result, isolation: isolated (any Actor)? = #isolation,
        _ nextPartialResult: (_ partialResult: Result, Item) throws -> Result
    ) async throws -> Result {
        var result = initialResult
        var iterator = makeAsyncIterator()
        while let item = try await iterator.next(isolation: isolation) {
            result = try nextPartialResult(result, item)
        }
        return result
    }

    /// Combines the items into a mutable result with `updateAccumulatingResult`, which runs
    /// on the caller's actor.
    ///
    /// ```swift
    /// let firstTen = try await manager.items(Contact.self, from: url).prefix(10).reduce(into: []) { $0.append($1) }
    /// ```
    ///
    /// - Parameters:
    ///   - initialResult: The value to start from.
    ///   - isolation: Where `updateAccumulatingResult` runs; the caller's actor by default.
    ///   - updateAccumulatingResult: Adds the next item to the result.
    /// - Returns: The final result; `initialResult` when there are no items.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    public func reduce<Result>(
        into initialResult: Result, isolation: isolated (any Actor)? = #isolation,
        _ updateAccumulatingResult: (_ partialResult: inout Result, Item) throws -> Void
    ) async throws -> Result {
        var result = initialResult
        var iterator = makeAsyncIterator()
        while let item = try await iterator.next(isolation: isolation) {
            try updateAccumulatingResult(&result, item)
        }
        return result
    }

    /// The first item that satisfies `predicate`, which runs on the caller's actor; `nil`
    /// when none does. No page after the one holding that item is requested.
    ///
    /// - Parameters:
    ///   - isolation: Where `predicate` runs; the caller's actor by default.
    ///   - predicate: Whether an item is the one wanted.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    public func first(
        isolation: isolated (any Actor)? = #isolation, where predicate: (Item) throws -> Bool
    ) async throws -> Item? {
        var iterator = makeAsyncIterator()
        while let item = try await iterator.next(isolation: isolation) {
            if try predicate(item) { return item }
        }
        return nil
    }

    /// Whether an item satisfies `predicate`, which runs on the caller's actor. Stops at the
    /// first that does.
    ///
    /// - Parameters:
    ///   - isolation: Where `predicate` runs; the caller's actor by default.
    ///   - predicate: Whether an item is the one wanted.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    public func contains(
        isolation: isolated (any Actor)? = #isolation, where predicate: (Item) throws -> Bool
    ) async throws -> Bool {
        try await first(isolation: isolation, where: predicate) != nil
    }

    /// Whether every item satisfies `predicate`, which runs on the caller's actor; `true` for
    /// no items. Stops at the first that does not.
    ///
    /// - Parameters:
    ///   - isolation: Where `predicate` runs; the caller's actor by default.
    ///   - predicate: Whether an item qualifies.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    public func allSatisfy(
        isolation: isolated (any Actor)? = #isolation, _ predicate: (Item) throws -> Bool
    ) async throws -> Bool {
        try await first(isolation: isolation, where: { try !predicate($0) }) == nil
    }

    /// The smallest item by `areInIncreasingOrder`, which runs on the caller's actor; `nil`
    /// for no items.
    ///
    /// - Parameters:
    ///   - isolation: Where `areInIncreasingOrder` runs; the caller's actor by default.
    ///   - areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    @warn_unqualified_access
    public func min(
        isolation: isolated (any Actor)? = #isolation, by areInIncreasingOrder: (Item, Item) throws -> Bool
    ) async throws -> Item? {
        try await reduce(nil as Item?, isolation: isolation) { least, item in
            guard let least else { return item }
            return try areInIncreasingOrder(item, least) ? item : least
        }
    }

    /// The largest item by `areInIncreasingOrder`, which runs on the caller's actor; `nil`
    /// for no items.
    ///
    /// - Parameters:
    ///   - isolation: Where `areInIncreasingOrder` runs; the caller's actor by default.
    ///   - areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Throws: ``HalleyError`` from fetching or decoding a page, or what the closure throws.
    @warn_unqualified_access
    public func max(
        isolation: isolated (any Actor)? = #isolation, by areInIncreasingOrder: (Item, Item) throws -> Bool
    ) async throws -> Item? {
        // The least by the reversed order: like the standard library's, the first of equal items.
        try await self.min(isolation: isolation, by: { try areInIncreasingOrder($1, $0) })
    }
}
