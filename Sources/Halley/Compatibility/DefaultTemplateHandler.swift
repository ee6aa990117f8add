import Foundation

/// The original Halley's global template values: a value registered here fills that
/// variable in every templated link of every manager, unless a call, request or include
/// gives its own.
///
/// ```swift
/// DefaultTemplateHandler
///     .shared
///     .updateTemplate(for: "country_key") { "US" }
/// // "/contacts/1/website{?country_key}" is requested as "/contacts/1/website?country_key=US"
/// ```
///
/// It is a view of ``TemplateVariableProvider/shared``, which every manager consults by
/// default (``ResourceManager/Configuration/templateVariables``). Thread-safe: closures are
/// evaluated at the start of each call, outside the provider's lock.
public final class DefaultTemplateHandler: Sendable {
    /// The one handler, over ``TemplateVariableProvider/shared``.
    public static let shared = DefaultTemplateHandler(provider: .shared)

    /// Where the values live.
    public let provider: TemplateVariableProvider

    private init(provider: TemplateVariableProvider) {
        self.provider = provider
    }

    /// Sets the value of `key`, computed at the start of every call; `nil` leaves the variable
    /// undefined (RFC 6570 then drops it).
    public func updateTemplate(for key: String, value: @escaping @Sendable () -> String?) {
        provider.set(key) { value().map { .string($0) } }
    }

    /// Removes the value of `key`.
    public func removeTemplate(for key: String) {
        provider.remove(key)
    }

    /// The values now, as strings (lists and maps joined as RFC 6570 would not: use the
    /// provider for those).
    public var expandedValues: [String: String] {
        provider.values().compactMapValues { value in
            if case .string(let text) = value { text } else { nil }
        }
    }
}
