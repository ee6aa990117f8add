import Foundation
import HalleyHAL

/// Salted SHA-256 fingerprints of a request's header values: how the response cache and the
/// resource store tell whose credentials a request carried without keeping them in clear.
///
/// Each holder draws its own salt, so a fingerprint means nothing outside it.
package struct CredentialFingerprint: Sendable {
    /// Mixed into every fingerprint.
    private let salt: [UInt8]

    /// A fingerprinter with a fresh random salt.
    package init() {
        var generator = SystemRandomNumberGenerator()
        salt = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A fingerprinter with a salt kept elsewhere: a durable store's, drawn when its file was
    /// created, so that its rows' fingerprints match across launches.
    package init(salt: [UInt8]) {
        self.salt = salt
    }

    /// The request's credential-bearing header values (by its credential scope, the
    /// pipeline's and the redirects' own), fingerprinted: two requests get the same one exactly
    /// when they carry the same credentials.
    package func credentials(of request: ResourceRequest) -> [UInt8] {
        values(of: request, names: request.credentialScope.headerNames.sorted())
    }

    /// The request's values for `names` (sorted, lowercased): equal exactly when every named
    /// header has the same values, absent ones included.
    package func values(of request: ResourceRequest, names: [String]) -> [UInt8] {
        var bytes = salt
        for name in names {
            bytes.append(contentsOf: name.utf8)
            bytes.append(0)
            // The length first: most fields are not the one named, and lowercasing allocates.
            for field in request.headers
            where field.name.utf8.count == name.utf8.count && field.name.lowercased() == name {
                bytes.append(1)
                bytes.append(contentsOf: field.value.utf8)
            }
            bytes.append(0)
        }
        return SHA256.digest(bytes)
    }
}
