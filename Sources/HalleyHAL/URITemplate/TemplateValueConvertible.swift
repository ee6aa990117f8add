import Foundation

/// A runtime value usable as a template variable, so `follow("ea:order", ["id": id])` compiles
/// with `id: Int` (or `Double`, `Bool`, `String`, `[String]`, `[String: String]`, an optional of
/// these, or a ``TemplateValue``).
///
/// ```swift
/// let id = 42
/// let order = try await manager.entry(rootURL).follow("ea:order", ["id": id]).get()
/// ```
public protocol TemplateValueConvertible: Sendable {
    /// The value as RFC 6570 sees it.
    var templateValue: TemplateValue { get }
}

extension TemplateValue: TemplateValueConvertible {
    /// Itself.
    public var templateValue: TemplateValue { self }
}

extension String: TemplateValueConvertible {
    /// A string value.
    public var templateValue: TemplateValue { .string(self) }
}

extension Int: TemplateValueConvertible {
    /// The decimal text.
    public var templateValue: TemplateValue { .string(String(self)) }
}

extension Double: TemplateValueConvertible {
    /// The shortest text that reads back as the same number (`37.76`, `1.0`).
    public var templateValue: TemplateValue { .string(description) }
}

extension Bool: TemplateValueConvertible {
    /// `true` or `false`.
    public var templateValue: TemplateValue { .string(self ? "true" : "false") }
}

extension Array: TemplateValueConvertible where Element == String {
    /// A list, in order.
    public var templateValue: TemplateValue { .list(self) }
}

extension Dictionary: TemplateValueConvertible where Key == String, Value == String {
    /// An associative array, sorted by key so the URL does not depend on hash order.
    public var templateValue: TemplateValue {
        .associativeArray(sorted { $0.key < $1.key }.map { TemplateValue.KeyValue(key: $0.key, value: $0.value) })
    }
}

extension Optional: TemplateValueConvertible where Wrapped: TemplateValueConvertible {
    /// The wrapped value, or undefined (the variable is skipped).
    public var templateValue: TemplateValue { self?.templateValue ?? .undefined }
}
