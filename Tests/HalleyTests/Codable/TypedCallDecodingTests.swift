import Foundation
import Halley
import HalleyTestSupport
import Testing

/// What a typed call's decoding looks like from outside, now that it decodes the merged tree
/// directly: the same errors as `JSONDecoder`, the caller's `JSONDecoder` subclass still
/// called, and the documented cases where the parsed tree holds less than the body's text.
@Suite struct TypedCallDecodingTests {
    static let url = "https://api.example.com/thing"

    struct Thing: Decodable, Equatable {
        struct Part: Decodable, Equatable {
            let id: Int
            let small: Int8?
            let url: URL?
            let at: Date?
            let blob: Data?
        }

        let title: String
        let parts: [Part]
        let byName: [String: Part]?
    }

    /// A manager whose one URL answers `body`.
    static func manager(answering body: String) async -> ResourceManager {
        await .answering(body, at: url)
    }

    static func failure(_ call: () async throws -> some Any) async -> HalleyError? {
        await halleyError(of: call)
    }

    @Test(arguments: [
        #"{"parts": []}"#,
        #"{"title": 1, "parts": []}"#,
        #"{"title": null, "parts": []}"#,
        #"{"title": "t", "parts": [{"id": 1}, {"id": "2"}]}"#,
        #"{"title": "t", "parts": [{"id": 1}, {}]}"#,
        #"{"title": "t", "parts": [{"id": 1, "small": 300}]}"#,
        #"{"title": "t", "parts": [{"id": 1.5}]}"#,
        #"{"title": "t", "parts": [{"id": 1, "url": ""}]}"#,
        #"{"title": "t", "parts": [{"id": 1, "at": "yesterday"}]}"#,
        #"{"title": "t", "parts": [{"id": 1, "blob": "!!"}]}"#,
        #"{"title": "t", "parts": [], "byName": {"a": {"id": 1, "at": 5}}}"#,
        #"{"title": "t", "parts": [], "byName": {"7": {"id": null}}}"#,
        #"{"title": "t", "parts": {}}"#,
    ])
    func failuresReadAsJSONDecodersDo(body: String) async throws {
        let manager = await Self.manager(answering: body)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let typed = await Self.failure {
            try await manager.request(HalleyRequest<Thing>(url: Self.url, decoder: decoder))
        }
        // The same body through `JSONDecoder`: an action's response decodes its bytes with it.
        let plain = await Self.failure {
            try await manager.send(.get, to: Self.url).decode(Thing.self, decoder: decoder)
        }
        let typedError = try #require(typed)
        let plainError = try #require(plain)
        #expect(typedError.code == .decoding)
        #expect(typedError.message == plainError.message)
        #expect(
            typedError.underlying.map(String.init(describing:)) == plainError.underlying.map(String.init(describing:)))
    }

    @Test func theIncludePathOfAFailureIsNamed() async throws {
        let body = #"{"title": "t", "_embedded": {"parts": [{"id": 1}, {"id": "x"}]}}"#
        let manager = await Self.manager(answering: body)
        let error = try #require(
            await Self.failure { try await manager.request(HalleyRequest<Thing>(url: Self.url, includes: ["[parts]"])) }
        )
        #expect(error.includePath == "[parts]")
        #expect(error.message.contains("$.parts[1].id"))
    }

    /// A subclass may override `decode(_:from:)`; the typed call must still go through it, with
    /// the merged document's text.
    @Test func aJSONDecoderSubclassStillDecodes() async throws {
        // Safe: the subclass adds no stored state, and `JSONDecoder` guards its own with a lock.
        final class Recording: JSONDecoder, @unchecked Sendable {
            struct Called: Error {
                let text: String
            }

            override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
                throw Called(text: String(decoding: data, as: UTF8.self))
            }
        }
        let manager = await Self.manager(answering: #"{"title": "t", "parts": []}"#)
        let error = try #require(
            await Self.failure { try await manager.request(HalleyRequest<Thing>(url: Self.url, decoder: Recording())) })
        let called = try #require(error.underlying as? Recording.Called)
        let merged = try await manager.resource(from: try #require(URL(string: Self.url)))
        #expect(called.text == String(decoding: merged.serialized(), as: UTF8.self))
    }

    // The documented cases where the parsed tree holds less than the text: the typed call
    // decodes what the tree holds, as `JSONDecoder` decodes the merged document's text.

    @Test func anIntegerPastSixtyFourBitsIsTheNearestDouble() async throws {
        struct Big: Decodable {
            let id: UInt64
            let size: Double
        }
        let manager = await Self.manager(answering: #"{"id": 18446744073709551615, "size": 18446744073709551615}"#)
        let error = try #require(await Self.failure { try await manager.request(HalleyRequest<Big>(url: Self.url)) })
        #expect(error.code == .decoding)
        #expect(error.message.contains("The given data was not valid JSON."))
        struct Size: Decodable {
            let size: Double
        }
        #expect(try await manager.request(HalleyRequest<Size>(url: Self.url)).size == Double(UInt64.max))
    }

    @Test func aDecimalHasTheDigitsOfTheNearestDouble() async throws {
        struct Price: Decodable {
            let amount: Decimal
            let exact: Decimal
        }
        let manager = await Self.manager(answering: #"{"amount": 0.30000000000000001, "exact": 19.99}"#)
        let price = try await manager.request(HalleyRequest<Price>(url: Self.url))
        #expect(price.amount == Decimal(string: "0.3"))
        #expect(price.exact == Decimal(string: "19.99"))
    }

    @Test func aRepeatedMemberKeepsItsLastValue() async throws {
        struct Named: Decodable {
            let name: String
        }
        let manager = await Self.manager(answering: #"{"name": "first", "name": "last"}"#)
        #expect(try await manager.request(HalleyRequest<Named>(url: Self.url)).name == "last")
    }
}
