/// This library's version: the one place it is written. `halley --version` prints it, and
/// every request carries it in ``userAgent`` unless the caller sends a `User-Agent` of its own.
///
/// ```swift
/// print(HalleyVersion.current)  // 0.2.0
/// configuration.headers = ["User-Agent": "Shop/2.1 " + HalleyVersion.userAgent]
/// ```
public enum HalleyVersion {
    /// The version, as CHANGELOG.md names its releases (Semantic Versioning).
    public static let current = "0.2.0"

    /// `Halley/0.2.0`: the `User-Agent` of every request (RFC 9110, 10.1.5) whose caller sets
    /// none, through the manager's headers, the header provider, the call's, or a request's own.
    public static let userAgent = "Halley/" + current
}
