import HalleyHAL

/// The original Halley's spelling of ``IncludableType``, so its models compile unchanged:
///
/// ```swift
/// extension Contact: IncludeableType {
///     enum IncludeType { case full, contacts }
/// }
/// ```
public typealias IncludeableType = IncludableType
