import Foundation
import Halley
import HalleyTestSupport
import Testing

/// An include path's error says each thing once: one offset, and the path once (issue 38;
/// it read `'[' at offset 0 is never closed in include path "[authors" at offset 8 (include
/// path "[authors")`).
@Suite struct IncludePathMessageTests {
    @Test func anUnclosedBracketNamesOneOffsetAndThePathOnce() async throws {
        let requester = InMemoryRequester()
        let manager = ResourceManager(requester: requester)
        let error = try #require(
            await halleyError { try await manager.resource(from: Graph.url("/books/1"), includes: ["[authors"]) })
        #expect(error.code == .invalidInclude)
        #expect(error.includePath == "[authors")
        #expect(error.message == "'[' is never closed: expected ']' at offset 8")
        #expect(error.description == #"'[' is never closed: expected ']' at offset 8 (include path "[authors")"#)
        let underlying = try #require(error.underlying as? IncludePathError)
        #expect(underlying.offset == 8)
        #expect(underlying.description == #"'[' is never closed: expected ']' at offset 8 in include path "[authors""#)
        #expect(await requester.requestCount == 0)
    }

    @Test func everyIncludeErrorSaysThePathOnce() async throws {
        let manager = ResourceManager(requester: InMemoryRequester())
        for path in ["[authors", "a..b", " a", "a]", "\"open", "[a]b"] {
            let error = try #require(
                await halleyError { try await manager.resource(from: Graph.url("/"), includes: [Include(path)]) })
            let text = error.description
            #expect(text.components(separatedBy: "include path").count - 1 == 1, "\(text)")
            #expect(text.components(separatedBy: "offset").count - 1 == 1, "\(text)")
        }
    }

    @Test func conflictingIncludesSayThePathOnce() async throws {
        let manager = ResourceManager(requester: InMemoryRequester())
        let error = try #require(
            await halleyError {
                try await manager.resource(from: Graph.url("/"), includes: ["authors", "[authors]"])
            })
        #expect(
            error.description
                == #"authors is included as to-one and as to-many (authors and [authors]) at offset 0 "#
                + #"(include path "[authors]")"#)
    }
}
