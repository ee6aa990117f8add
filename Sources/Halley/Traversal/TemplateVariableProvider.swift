import Foundation
import HalleyHAL

/// Template variables shared by every call of the managers that use it: fixed values and
/// closures evaluated when a call starts (a locale, a user id, an API version), like the
/// original Halley's default template handler.
///
/// ```swift
/// let variables = TemplateVariableProvider()
/// variables.set("api", to: "v2")
/// variables.set("locale") { Locale.current.identifier }
/// var configuration = ResourceManager.Configuration()
/// configuration.templateVariables = variables
/// ```
///
/// Thread-safe. Closures run outside the provider's lock, so a closure may read or change
/// the provider without deadlocking.
public final class TemplateVariableProvider: Sendable {
    /// A fixed value or a closure producing one (`nil` meaning undefined).
    private enum Source: Sendable {
        case value(TemplateValue)
        case closure(@Sendable () -> TemplateValue?)
    }

    private let sources = LockedValue<[String: Source]>([:])

    /// The provider shared by the whole process, as the original Halley's default template
    /// handler: every manager consults it unless its configuration says otherwise.
    public static let shared = TemplateVariableProvider()

    /// Creates an empty provider.
    public init() {}

    /// Sets a fixed value; `nil` removes the variable.
    public func set(_ name: String, to value: TemplateValue?) {
        sources.withLock { $0[name] = value.map { .value($0) } }
    }

    /// Sets a closure evaluated at the start of every call that uses the provider.
    public func set(_ name: String, _ closure: @escaping @Sendable () -> TemplateValue?) {
        sources.withLock { $0[name] = .closure(closure) }
    }

    /// Removes a variable.
    public func remove(_ name: String) {
        sources.withLock { $0[name] = nil }
    }

    /// The variables now: fixed values, and closures evaluated (outside the lock).
    public func values() -> [String: TemplateValue] {
        let snapshot = sources.get()
        var values: [String: TemplateValue] = [:]
        for (name, source) in snapshot {
            switch source {
            case .value(let value): values[name] = value
            case .closure(let closure): if let value = closure() { values[name] = value }
            }
        }
        return values
    }
}
