import Foundation
import Halley

extension ResourceManager {
    /// A manager over `requester` with the default configuration as `configure` changes it:
    /// the set-up of the suites that hold one transport to the engine.
    public static func over<Requester: RequesterInterface & Sendable>(
        _ requester: Requester, configure: (inout ResourceManager.Configuration) -> Void = { _ in }
    ) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configure(&configuration)
        return ResourceManager(requester: requester, configuration: configuration)
    }
}

extension ResourceManager {
    /// A manager over a requester that is not `Sendable` (or whose type is not known to be),
    /// such as a `Transport`'s, which the manager takes over as its own initializer does.
    public static func over<Requester: RequesterInterface>(
        _ requester: sending Requester, configure: (inout ResourceManager.Configuration) -> Void = { _ in }
    ) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configure(&configuration)
        return ResourceManager(requester: requester, configuration: configuration)
    }
}
