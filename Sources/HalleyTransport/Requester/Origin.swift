import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, the unit credentials are scoped to.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased scheme.
    public let scheme: String
    /// Lowercased host.
    public let host: String
    /// The port, with the scheme's default filled in.
    public let port: Int?

    /// The origin of `url`.
    public init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? Origin.defaultPort(for: scheme)
    }

    /// Parses `scheme://host[:port]`; `nil` when the text is not such an origin.
    public init?(_ text: String) {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
        self.init(url)
    }

    /// How a URL of this origin starts when written plainly: `https://api.example.com`, the
    /// port only when it is not the scheme's default; `nil` for other schemes.
    var urlPrefix: String? {
        guard let defaultPort = Origin.defaultPort(for: scheme), !host.isEmpty else { return nil }
        return port == defaultPort ? "\(scheme)://\(host)" : port.map { "\(scheme)://\(host):\($0)" }
    }

    private static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// `scheme://host:port`.
    public var description: String {
        port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
