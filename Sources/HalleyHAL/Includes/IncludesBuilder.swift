/// Builds a model's include list from ``ToOne``, ``ToMany`` and ``Nested`` statements, with
/// `if`/`else`, `switch`, optionals and `for` loops.
///
/// The generic parameter fixes the key type, so `.contacts` resolves against the model's
/// coding keys:
///
/// ```swift
/// @IncludesBuilder<Contact.CodingKeys>
/// func prepareIncludes() -> [IncludeField] {
///     ToMany(.contacts)
///     if withWebsite { ToOne(.website) }
/// }
/// ```
@resultBuilder
public enum IncludesBuilder<Key: IncludeKey> {
    /// A to-one include.
    public static func buildExpression(_ expression: ToOne<Key>) -> [IncludeField] { [expression.field] }
    /// A to-many include.
    public static func buildExpression(_ expression: ToMany<Key>) -> [IncludeField] { [expression.field] }
    /// A nested include.
    public static func buildExpression(_ expression: Nested<Key>) -> [IncludeField] { [expression.field] }
    /// A field built elsewhere.
    public static func buildExpression(_ expression: IncludeField) -> [IncludeField] { [expression] }
    /// Fields built elsewhere, e.g. another include list's `prepareIncludes()`.
    public static func buildExpression(_ expression: [IncludeField]) -> [IncludeField] { expression }
    /// Statements in sequence.
    public static func buildBlock(_ components: [IncludeField]...) -> [IncludeField] { components.flatMap { $0 } }
    /// An `if` without `else`, or an optional.
    public static func buildOptional(_ component: [IncludeField]?) -> [IncludeField] { component ?? [] }
    /// The first branch of `if`/`else` or `switch`.
    public static func buildEither(first component: [IncludeField]) -> [IncludeField] { component }
    /// The second branch of `if`/`else` or `switch`.
    public static func buildEither(second component: [IncludeField]) -> [IncludeField] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[IncludeField]]) -> [IncludeField] { components.flatMap { $0 } }
    /// An `if #available` branch.
    public static func buildLimitedAvailability(_ component: [IncludeField]) -> [IncludeField] { component }
}
