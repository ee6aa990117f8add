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
