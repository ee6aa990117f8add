import Foundation
import Testing

/// Reads files under the repository's `Fixtures/` folder.
public enum Fixture {
    /// `Fixtures/` located from this file, so tests run from any working directory.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // HalleyTestFixtures
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")

    public static func url(_ path: String) -> URL { directory.appendingPathComponent(path) }

    public static func data(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
        do {
            return try Data(contentsOf: url(path))
        } catch {
            Issue.record("missing fixture \(path): \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }
}
