import Foundation

/// The library's version, as its CHANGELOG names the release.
///
/// ```swift
/// print(HalleyVersion.current)  // "0.2.0"
/// ```
public enum HalleyVersion {
    /// This release's version number (semantic versioning).
    public static let current = "0.2.0"

    /// The `User-Agent` every request carries unless the caller sets one: `Halley/0.2.0`.
    public static let userAgent = "Halley/\(current)"
}
