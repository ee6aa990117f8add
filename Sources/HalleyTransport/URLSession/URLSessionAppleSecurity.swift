import HalleyHAL

// The part of URLSessionRequester that needs Apple's Security framework and the URLSession API
// FoundationNetworking leaves out (server-trust challenges, `URLCredential(trust:)`,
// `tlsMinimumSupportedProtocolVersion`): server trust, anchors, pins, the minimum TLS version,
// and the answer to every challenge. Compiled where Security exists; Tools/AppleStandIns
// compiles this very file on Linux too, against hand-written declarations of those calls
// copied from Apple's headers (a module of its own named Security, and HALLEY_APPLE_STANDINS
// for the imports), so a renamed call or a wrong label fails CI without a Mac.
#if HALLEY_APPLE_STANDINS
    import Foundation
    import FoundationNetworking
    import Security
#elseif canImport(Security)
    import Foundation
    import Security
#endif

#if HALLEY_APPLE_STANDINS || canImport(Security)
    /// Evaluates a server's certificate chain the way a ``TLSConfiguration`` says (Apple
    /// platforms): the host name always, the configuration's anchors, and its pins.
    struct TrustEvaluator: Sendable {
        /// DER anchors to add (or to use alone).
        let anchors: [Data]
        let anchorsOnly: Bool
        let skipsVerification: Bool
        let pins: Set<Data>

        init(tls: TLSConfiguration, material: TLSMaterial) {
            anchors = material.caCertificates
            anchorsOnly = !material.trustsSystem
            skipsVerification = tls.dangerouslySkipsCertificateVerification
            pins = Set(tls.pinnedKeys.map(\.sha256))
        }

        /// `nil` when the server may be trusted, else why not.
        func evaluate(_ trust: SecTrust, host: String, url: URL) -> TLSError? {
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            if skipsVerification {
                // Any chain: the server's own certificates become the anchors, so the host
                // name (and the dates) are still checked.
                SecTrustSetAnchorCertificates(trust, chain as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, true)
            } else if !anchors.isEmpty {
                let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                SecTrustSetAnchorCertificates(trust, certificates as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, anchorsOnly)
            }
            var error: CFError?
            if !SecTrustEvaluateWithError(trust, &error) {
                let detail = error.map { CFErrorCopyDescription($0) as String } ?? "the certificate is not trusted"
                // The evaluation's error carries the OSStatus of the first problem found.
                let code = error.map { Int(CFErrorGetCode($0)) } ?? 0
                if code == Int(errSecHostNameMismatch) {
                    return TLSError(kind: .hostNameMismatch, url: url, detail: detail)
                }
                if code == Int(errSecCertificateExpired) || code == Int(errSecCertificateNotValidYet) {
                    return TLSError(kind: .expiredCertificate, url: url, detail: detail)
                }
                return TLSError(kind: .untrustedCertificate, url: url, detail: detail)
            }
            guard !pins.isEmpty else { return nil }
            // As curl: the server's own (leaf) key must be one of the pins.
            if let leaf = chain.first,
                let key = PEM.subjectPublicKeyInfo(ofCertificate: SecCertificateCopyData(leaf) as Data),
                pins.contains(Data(SHA256.digest(key)))
            {
                return nil
            }
            return TLSError(kind: .pinnedKeyMismatch, url: url, detail: "")
        }
    }

    /// The Apple half of a requester's own session: what its configuration gets, and how its
    /// delegate answers challenges.
    enum AppleSessionSecurity {
        /// Sets the TLS settings URLSession takes in its configuration.
        static func configure(_ configuration: URLSessionConfiguration, for tls: TLSConfiguration) {
            configuration.tlsMinimumSupportedProtocolVersion = tls.minimumVersion == .tls13 ? .TLSv13 : .TLSv12
        }

        /// Answers `challenge` for the task of `url`: server trust by `trust` (the system's
        /// evaluation when `nil`), any other by ``ChallengeAnswer``. Returns the refusal to
        /// fail the task with when the server is not trusted.
        static func answer(
            _ challenge: URLAuthenticationChallenge, url: URL, trust: TrustEvaluator?,
            proxyCredentials: ProxyConfiguration.Credentials?, handling: URLSessionRequester.ChallengeHandling,
            completionHandler: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) -> TLSError? {
            let space = challenge.protectionSpace
            if space.authenticationMethod == NSURLAuthenticationMethodServerTrust {
                guard let trust, let serverTrust = space.serverTrust else {
                    completionHandler(.performDefaultHandling, nil)
                    return nil
                }
                if let refusal = trust.evaluate(serverTrust, host: space.host, url: url) {
                    completionHandler(.cancelAuthenticationChallenge, nil)
                    return refusal
                }
                completionHandler(.useCredential, URLCredential(trust: serverTrust))
                return nil
            }
            let (disposition, credential) = ChallengeAnswer.disposition(
                isProxy: space.isProxy(), previousFailureCount: challenge.previousFailureCount,
                proxyCredentials: proxyCredentials, handling: handling)
            completionHandler(disposition, credential)
            return nil
        }
    }
#endif
