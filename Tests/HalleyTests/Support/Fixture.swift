import Foundation
import Testing

/// Reads files under the repository's `Fixtures/` folder.
enum Fixture {
    /// `Fixtures/` located from this file, so tests run from any working directory.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HalleyTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL { directory.appendingPathComponent(path) }

    static func data(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
        do {
            return try Data(contentsOf: url(path))
        } catch {
            Issue.record("missing fixture \(path): \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }
}
