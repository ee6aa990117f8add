/// Names an includable relationship: a model's `CodingKey` (its `stringValue`) or a `String`.
///
/// ```swift
/// enum CodingKeys: String, CodingKey, IncludeKey { case _links, id, name, contacts, website }
/// ```
public protocol IncludeKey {
    /// The relation name the key stands for.
    var includeKeyName: String { get }
}

extension IncludeKey where Self: CodingKey {
    /// The coding key's string value.
    public var includeKeyName: String { stringValue }
}

extension String: IncludeKey {
    /// The string itself.
    public var includeKeyName: String { self }
}

/// A model with named include lists, as in the original Halley.
///
/// ```swift
/// extension Contact: IncludableType {
///     enum IncludeType { case full, contacts }
/// }
/// ```
public protocol IncludableType {
    /// The model's named include lists, usually an enum conforming to ``IncludeTypeInterface``.
    associatedtype IncludeType
}

/// One of a model's named include lists.
///
/// ```swift
/// extension Contact.IncludeType: IncludeTypeInterface {
///     typealias IncludeCodingKey = Contact.CodingKeys
///     @IncludesBuilder<IncludeCodingKey>
///     func prepareIncludes() -> [IncludeField] {
///         switch self {
///         case .full: ToMany(.contacts); ToOne(.website)
///         case .contacts: ToMany(.contacts)
///         }
///     }
/// }
/// ```
public protocol IncludeTypeInterface {
    /// The keys the include list names relationships with.
    associatedtype IncludeCodingKey: IncludeKey
    /// The relationships of this include list.
    func prepareIncludes() -> [IncludeField]
}

extension IncludeTypeInterface {
    /// The include list compiled to a plan.
    ///
    /// - Throws: ``IncludePathError/Code/conflictingInclude`` when the list includes a
    ///   relation both as to-one and to-many.
    public func includePlan() throws(IncludePathError) -> IncludePlan {
        try IncludePlan(fields: prepareIncludes())
    }
}
