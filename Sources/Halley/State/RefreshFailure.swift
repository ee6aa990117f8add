import Foundation
import HalleyHAL

/// A refresh that failed while the last known state was served instead (stale data over no
/// data, RFC 5861's `stale-if-error`).
///
/// ```swift
/// let state = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).get()
/// if let failure = state.refreshFailure, failure.error.code == .transport { print("showing the last known order") }
/// ```
public struct RefreshFailure: Sendable, Hashable, CustomStringConvertible {
    /// The error the refresh ended with.
    public let error: HalleyError

    /// Two failures are equal when their errors say the same (code, URL, message).
    public static func == (lhs: RefreshFailure, rhs: RefreshFailure) -> Bool {
        lhs.error.code == rhs.error.code && lhs.error.url == rhs.error.url && lhs.error.message == rhs.error.message
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(error.code)
        hasher.combine(error.url)
        hasher.combine(error.message)
    }

    /// The error's sentence.
    public var description: String { error.description }
}
