import Foundation
import Halley
import HalleyTestSupport

/// What the state suites over HTTP share: a manager that keeps state, over a real requester.
enum StateManagers {
    /// A manager with `store`, over a new requester of `transport`, reporting to `observer`.
    static func make(
        _ transport: Transport = .curl, store: ResourceStore = ResourceStore(), observer: TraversalObserver? = nil
    ) throws -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.store = store
        configuration.observer = observer
        return ResourceManager(requester: try transport.make(), configuration: configuration)
    }

    /// Call options carrying `fields` (credentials or headers that select a representation).
    static func headers(_ fields: HeaderFields) -> CallOptions {
        var options = CallOptions()
        options.headers = fields
        return options
    }
}
