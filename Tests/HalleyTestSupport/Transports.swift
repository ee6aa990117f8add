import Foundation
import Halley
import Testing

/// The HTTP requesters the transport tests hold to the same rules.
public enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlsession
    case curl

    /// A new requester of this kind.
    public func make() throws -> any RequesterInterface {
        switch self {
        case .urlsession: return URLSessionRequester()
        case .curl: return try CurlRequester()
        }
    }

    /// Whether this transport is known to miss a goal of issue #16 where it reads at full
    /// speed: FoundationNetworking queues every chunk libcurl reads for the delegate without
    /// waiting for it, so an endless or inflating body grows memory past any limit the
    /// delegate enforces; it reuses a connection that still holds the excess of a body
    /// longer than its Content-Length; and it drops the body when it follows a 307 or 308.
    /// `CurlRequester` exists for these.
    public var hasFoundationNetworkingGaps: Bool {
        #if canImport(FoundationNetworking)
            return self == .urlsession
        #else
            return false
        #endif
    }

    /// The name `halley-transport-probe` takes.
    public var probeName: String { rawValue }

    public var testDescription: String { rawValue }
}

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer (`.ci/run`).
public enum Sanitizer {
    public static let isActive: Bool = {
        #if os(Linux)
            let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
            return dlsym(everywhere, "__tsan_init") != nil || dlsym(everywhere, "__asan_init") != nil
        #else
            return false
        #endif
    }()
}
