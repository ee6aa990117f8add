// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (Apple's names, kept as the headers spell them.)
// Stand-ins for the Apple API that Sources/Halley/Requesting/URLSessionAppleSecurity.swift
// calls, copied by hand from Apple's SDK as Swift imports it (Security's SecTrust.h,
// SecPolicy.h, SecCertificate.h, SecBase.h; CoreFoundation's CFError.h; Foundation's
// NSURLProtectionSpace.h, NSURLCredential.h, NSURLSession.h). Each declaration keeps Apple's
// name, argument labels, parameter and result types, and optionality; none does anything,
// since nothing here runs.
//
// What the stand-ins cannot check: Core Foundation's bridging casts. `String as CFString`,
// `[SecCertificate] as CFArray` and `Data as CFData` need Objective-C bridging, which Linux
// has not, so those types are aliases of the Swift types they bridge to and any such cast
// type-checks here. Availability is not checked either (Tools/AppleView does that).
import Foundation
import FoundationNetworking

// MARK: CoreFoundation (CFBase.h, CFError.h)

/// `CFIndex`: a `signed long`.
public typealias CFIndex = Int
/// Bridged to `String` on Apple platforms; an alias here (see the file's notes).
public typealias CFString = String
/// Bridged to `[Any]` (`NSArray`) on Apple platforms; an alias here.
public typealias CFArray = [Any]
/// Bridged to `Data` on Apple platforms; an alias here.
public typealias CFData = Data
/// `CFTypeRef`.
public typealias CFTypeRef = AnyObject

/// `CFAllocatorRef`.
public final class CFAllocator {}

/// `CFErrorRef`.
public final class CFError {}

/// `CFStringRef CFErrorCopyDescription(CFErrorRef err)`.
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! { "" }

/// `CFIndex CFErrorGetCode(CFErrorRef err)`.
public func CFErrorGetCode(_ err: CFError!) -> CFIndex { 0 }

// MARK: Security (SecBase.h)

/// `OSStatus`: a `SInt32`.
public typealias OSStatus = Int32

/// `SecTrustRef`.
public final class SecTrust {}
/// `SecPolicyRef`.
public final class SecPolicy {}
/// `SecCertificateRef`.
public final class SecCertificate {}

/// `errSecHostNameMismatch`: the host name does not match the certificate's.
public var errSecHostNameMismatch: OSStatus { -67602 }
/// `errSecCertificateExpired`.
public var errSecCertificateExpired: OSStatus { -67818 }
/// `errSecCertificateNotValidYet`.
public var errSecCertificateNotValidYet: OSStatus { -67819 }

// MARK: Security (SecPolicy.h, SecCertificate.h, SecTrust.h)

/// `SecPolicyRef SecPolicyCreateSSL(Boolean server, CFStringRef __nullable hostname)`.
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy { SecPolicy() }

/// `SecCertificateRef __nullable SecCertificateCreateWithData(CFAllocatorRef __nullable allocator, CFDataRef data)`.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { nil }

/// `CFDataRef SecCertificateCopyData(SecCertificateRef certificate)`.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { Data() }

/// `OSStatus SecTrustSetPolicies(SecTrustRef trust, CFTypeRef policies)`.
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus { 0 }

/// `OSStatus SecTrustSetAnchorCertificates(SecTrustRef trust, CFArrayRef __nullable anchorCertificates)`.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus { 0 }

/// `OSStatus SecTrustSetAnchorCertificatesOnly(SecTrustRef trust, Boolean anchorCertificatesOnly)`.
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { 0 }

/// `CFArrayRef __nullable SecTrustCopyCertificateChain(SecTrustRef trust)` (macOS 12, iOS 15).
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { nil }

/// `bool SecTrustEvaluateWithError(SecTrustRef trust, CFErrorRef _Nullable * _Nullable error)`.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    false
}

// MARK: Foundation's Security-backed URL loading API (absent from, or unavailable in, FoundationNetworking)

/// `NSURLAuthenticationMethodServerTrust`.
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

extension URLProtectionSpace {
    /// `@property (nullable, readonly) SecTrustRef serverTrust`.
    public var serverTrust: SecTrust? { nil }
}

extension URLCredential {
    /// `- (instancetype)initWithTrust:(SecTrustRef)trust`.
    public convenience init(trust: SecTrust) {
        self.init(user: "", password: "", persistence: .none)
    }
}

extension URLSessionConfiguration {
    /// `@property tls_protocol_version_t TLSMinimumSupportedProtocolVersion`.
    public var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
        get { .TLSv12 }
        set {}
    }
}
