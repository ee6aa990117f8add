import Foundation
import Halley

/// The sample API the README's quick look and typed models name: the repository's
/// `Fixtures/api`, through `FileRequester`. Scaffolding only: nothing here appears in the README.
enum SampleAPI {
    /// A manager answering from the repository's `Fixtures/api`.
    static func fixtureManager() -> ResourceManager {
        ResourceManager(
            requester: FileRequester(directory: Snippets.repository.appendingPathComponent("Fixtures/api")))
    }
}
