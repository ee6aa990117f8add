import Foundation
import HalleyHAL

// The error underneath a call's error, for the failures this module reports; HalleyHAL
// declares `HalleyError` without knowing them.
extension HalleyError {
    /// The HTTP error, when ``code`` is ``Code/http``.
    public var httpError: HTTPError? { underlying as? HTTPError }

    /// The transport failure, when ``code`` is ``Code/transport`` or ``Code/timeout`` and a
    /// request got no response: the same ``TransportError/code`` for the same failure from
    /// every requester. `nil` for a call's deadline, which no single request caused.
    public var transportError: TransportError? { underlying as? TransportError }
}
