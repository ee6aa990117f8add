internal import CHalleyCurl
import Foundation

/// What every easy handle of one requester is set up with: its HTTP version and its TLS
/// options, worked out once when the requester is made.
struct CurlHandleSetup: Sendable {
    /// A `CURL_HTTP_VERSION_*` value.
    var httpVersion = CurlABI.Value.httpVersion2TLS
    var tls = CurlTLSOptions()
}

/// A ``TLSConfiguration`` as libcurl options, its files already read and checked.
///
/// How trust roots map, with libcurl and OpenSSL (Linux): `CURLOPT_CAINFO` (a file) or
/// `CURLOPT_CAINFO_BLOB` (PEM in memory) replaces libcurl's default CA bundle, while
/// `CURLOPT_CAPATH` (a hashed directory such as `/etc/ssl/certs`, where the build has one)
/// is searched as well. So:
///
/// - `.system` sets neither: libcurl's defaults are the system's CAs.
/// - `.systemAnd(extra)` leaves `CAPATH` as it is and sets `CAINFO_BLOB` to the extra PEM
///   alone when libcurl's default `CAPATH` (`CURLINFO_CAPATH`) is a directory of hashed
///   certificate names (Debian's `/etc/ssl/certs`, which `curl --cacert` relies on too):
///   OpenSSL finds a system CA there by its name's hash when a chain needs it. Without such a
///   directory, `CAINFO_BLOB` is the system bundle (the file libcurl reports as its default,
///   `CURLINFO_CAINFO`, or the first of the usual paths) followed by the extra PEM. Either
///   way the system's CAs stay trusted. The directory is preferred because OpenSSL parses a
///   blob whole at every handshake (perf: BENCHMARKS.md, "Why the hot paths look as they do").
/// - `.only(sources)` sets `CAINFO` (one file) or `CAINFO_BLOB` (anything else) and clears
///   `CAPATH`, so no system CA is trusted.
///
/// Blobs need libcurl 7.77 (CA) and 7.71 (client certificate and key); an older libcurl
/// gets ``UnsupportedSettingsError`` for PEM given as data or added to the system's, never a
/// key written to disk.
struct CurlTLSOptions: Sendable {
    var verifyPeer = true
    var sslVersion = CurlABI.Value.sslVersionTLS12
    var caFile: String?
    var caBlob: Data?
    var clearCAPath = false
    var certificate: TLSConfiguration.PEMSource?
    var key: TLSConfiguration.PEMSource?
    var passphrase: String?
    /// `sha256//a;sha256//b`, as `CURLOPT_PINNEDPUBLICKEY` takes them.
    var pins: String?
    /// The client certificate and key as errors name them.
    var identityNames: (certificate: String, key: String)?

    init() {}

    /// Reads and checks the configuration's files.
    ///
    /// - Throws: ``TLSConfigurationError``.
    init(_ configuration: TLSConfiguration) throws(TLSConfigurationError) {
        try self.init(configuration, systemDirectory: Self.hashedSystemDirectory())
    }

    /// Reads and checks the configuration's files; `systemDirectory` is the hashed directory
    /// of system CAs libcurl searches by default, if any.
    ///
    /// - Throws: ``TLSConfigurationError``.
    init(_ configuration: TLSConfiguration, systemDirectory: String?) throws(TLSConfigurationError) {
        let material = try TLSMaterial(configuration)
        verifyPeer = !configuration.dangerouslySkipsCertificateVerification
        sslVersion =
            configuration.minimumVersion == .tls13 ? CurlABI.Value.sslVersionTLS13 : CurlABI.Value.sslVersionTLS12
        if let only = material.onlyCAFile {
            caFile = only
            clearCAPath = true
        } else if let extra = material.caBundle {
            if material.trustsSystem && systemDirectory != nil {
                // The system's CAs come from the directory, looked up as a chain needs them.
                caBlob = extra
            } else if material.trustsSystem {
                let (path, searched) = Self.systemBundlePath()
                guard let path else { throw TLSConfigurationError(.systemBundleNotFound(searched: searched)) }
                var bundle = try TLSMaterial.read(.file(path), role: .trustRoot)
                bundle.append(UInt8(ascii: "\n"))
                bundle.append(extra)
                caBlob = bundle
            } else {
                caBlob = extra
                clearCAPath = true
            }
        }
        certificate = material.clientCertificate
        key = material.clientKey
        passphrase = material.passphrase
        if let certificate, let key { identityNames = ("\(certificate)", "\(key)") }
        if !configuration.pinnedKeys.isEmpty {
            pins = configuration.pinnedKeys.map(\.description).joined(separator: ";")
        }
    }

    /// libcurl's default CA directory (`CURLINFO_CAPATH`, libcurl 7.84 and later) when it holds
    /// certificates under hashed names (`5ad8a5d6.0`), the only ones OpenSSL looks up there;
    /// `nil` when libcurl has none, is older, or the directory has no such name.
    static func hashedSystemDirectory() -> String? {
        guard CurlLibrary.loadFailure == nil, let easy = halley_curl_easy_init() else { return nil }
        defer { halley_curl_easy_cleanup(easy) }
        var pointer: UnsafeMutableRawPointer?
        guard halley_curl_easy_getinfo_pointer(easy, CurlABI.Info.defaultCAPath, &pointer) == CurlABI.Code.ok,
            let pointer
        else { return nil }
        let path = String(cString: pointer.assumingMemoryBound(to: CChar.self))
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path),
            names.contains(where: isHashedName)
        else { return nil }
        return path
    }

    /// Whether `name` is OpenSSL's hashed form: eight hexadecimal digits, a dot, a number.
    static func isHashedName(_ name: String) -> Bool {
        let parts = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 8, !parts[1].isEmpty else { return false }
        return parts[0].allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            && parts[1].allSatisfy { (48...57).contains($0) }
    }

    /// Where libcurl finds the system's CAs: its own default, else the usual places.
    static func systemBundlePath() -> (String?, searched: [String]) {
        var candidates: [String] = []
        if CurlLibrary.loadFailure == nil, let easy = halley_curl_easy_init() {
            var pointer: UnsafeMutableRawPointer?
            if halley_curl_easy_getinfo_pointer(easy, CurlABI.Info.defaultCAInfo, &pointer) == CurlABI.Code.ok,
                let pointer
            {
                candidates.append(String(cString: pointer.assumingMemoryBound(to: CChar.self)))
            }
            halley_curl_easy_cleanup(easy)
        }
        candidates += [
            "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Alpine
            "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
            "/etc/ssl/ca-bundle.pem",  // openSUSE
            "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
            "/etc/ssl/cert.pem",  // macOS, BSDs
        ]
        let found = candidates.first { FileManager.default.isReadableFile(atPath: $0) }
        return (found, candidates)
    }

    /// Sets the options on a new handle.
    ///
    /// - Throws: ``UnsupportedSettingsError`` when libcurl is too old for a blob it needs,
    ///   ``CurlUnavailableError`` when it refuses another option.
    func apply(to easy: OpaquePointer) throws {
        func set(_ option: Int32, _ value: Int) throws {
            try CurlHandle.check(halley_curl_easy_setopt_long(easy, option, value))
        }
        func set(_ option: Int32, _ string: String?) throws {
            try CurlHandle.check(halley_curl_easy_setopt_pointer(easy, option, string))
        }
        func set(_ option: Int32, blob: Data, setting: String, needs version: String) throws {
            let code = blob.withUnsafeBytes { halley_curl_easy_setopt_blob(easy, option, $0.baseAddress, $0.count) }
            if code == CurlABI.Code.unknownOption || code == CurlABI.Code.notBuiltIn {
                throw UnsupportedSettingsError(
                    requester: "CurlRequester with \(CurlLibrary.version ?? "this libcurl")", settings: [setting],
                    advice: "it needs libcurl \(version) or later; give the PEM as a file instead")
            }
            try CurlHandle.check(code)
        }
        // Never off: a certificate must name the host, whatever else is trusted.
        try set(CurlABI.Option.sslVerifyHost, CurlABI.Value.verifyHostName)
        try set(CurlABI.Option.sslVerifyPeer, verifyPeer ? 1 : 0)
        try set(CurlABI.Option.sslVersion, sslVersion)
        if let caFile { try set(CurlABI.Option.caInfo, caFile) }
        if let caBlob {
            try set(
                CurlABI.Option.caInfoBlob, blob: caBlob, setting: "trust roots given as data or added to the system's",
                needs: "7.77")
        }
        if clearCAPath { try set(CurlABI.Option.caPath, nil) }
        switch certificate {
        case .file(let path)?:
            try set(CurlABI.Option.sslCertificate, path)
            try set(CurlABI.Option.sslCertificateType, "PEM")
        case .data(let data)?:
            try set(
                CurlABI.Option.sslCertificateBlob, blob: data, setting: "a client certificate given as data",
                needs: "7.71")
            try set(CurlABI.Option.sslCertificateType, "PEM")
        case nil:
            break
        }
        switch key {
        case .file(let path)?:
            try set(CurlABI.Option.sslKey, path)
            try set(CurlABI.Option.sslKeyType, "PEM")
        case .data(let data)?:
            try set(CurlABI.Option.sslKeyBlob, blob: data, setting: "a client key given as data", needs: "7.71")
            try set(CurlABI.Option.sslKeyType, "PEM")
        case nil:
            break
        }
        if let passphrase { try set(CurlABI.Option.keyPassword, passphrase) }
        if let pins { try set(CurlABI.Option.pinnedPublicKey, pins) }
    }
}

/// A proxy as libcurl takes it, for one transfer.
struct CurlProxy: Sendable {
    /// `scheme://host:port`, without credentials (they go through their own options, so a
    /// password holding `@` or `:` needs no escaping).
    let url: String
    let hostAndPort: String
    let user: String?
    let password: String?

    init(_ proxy: ProxyConfiguration.Proxy) {
        url = proxy.description
        hostAndPort = proxy.hostAndPort
        user = proxy.credentials?.user
        password = proxy.credentials?.password
    }
}

extension CurlTransfer {
    /// The error for a failed transfer when TLS or the proxy caused it, else `nil`.
    ///
    /// libcurl's codes say where it failed; OpenSSL's message (in the error buffer) says why,
    /// for the cases one code covers: an untrusted, expired or misnamed certificate are all
    /// `CURLE_PEER_FAILED_VERIFICATION`.
    func securityError(code: Int32, detail: String, connectCode: Int) -> (any Error)? {
        let url = job.url
        if let proxy = job.proxy {
            if connectCode >= 300 {
                return ProxyError(
                    proxy: proxy.hostAndPort, url: url,
                    reason: connectCode == 407 ? .authenticationRequired : .tunnelRefused(status: connectCode),
                    detail: detail)
            }
            switch code {
            case CurlABI.Code.couldNotResolveProxy:
                return ProxyError(proxy: proxy.hostAndPort, url: url, reason: .cannotResolve, detail: detail)
            case CurlABI.Code.couldNotConnect:
                // Through a proxy, the proxy is the only host libcurl connects to.
                return ProxyError(proxy: proxy.hostAndPort, url: url, reason: .cannotConnect, detail: detail)
            default:
                break
            }
        }
        switch code {
        case CurlABI.Code.peerFailedVerification, CurlABI.Code.sslIssuerError:
            return TLSError(kind: .ofRefusedCertificate(detail), url: url, detail: detail)
        case CurlABI.Code.sslPinnedKeyMismatch:
            return TLSError(kind: .pinnedKeyMismatch, url: url, detail: detail)
        case CurlABI.Code.sslClientCertificate:
            return TLSError(kind: .clientCertificateRequired, url: url, detail: detail)
        case CurlABI.Code.sslCertificateProblem:
            let (certificate, key) = identityNames ?? ("(none)", "(none)")
            return TLSConfigurationError(.clientIdentityRefused(certificate: certificate, key: key, detail: detail))
        case CurlABI.Code.sslConnectError, CurlABI.Code.sslCipher, CurlABI.Code.receiveError, CurlABI.Code.sendError:
            // TLS alerts after the handshake (TLS 1.3 sends "certificate required" then)
            // surface as receive errors; other receive errors are not TLS's.
            if let kind = TLSError.Kind.ofFailedHandshake(detail) {
                return TLSError(kind: kind, url: url, detail: detail)
            }
            if code == CurlABI.Code.sslConnectError || code == CurlABI.Code.sslCipher {
                return TLSError(kind: .handshakeFailed, url: url, detail: detail)
            }
            return nil
        default:
            return nil
        }
    }

    private var identityNames: (String, String)? { job.identityNames }
}

extension TLSError.Kind {
    /// Why libcurl (with OpenSSL) refused a server's certificate, from its message: one
    /// CURLcode covers an untrusted, an expired and a misnamed certificate alike.
    ///
    /// OpenSSL and LibreSSL say `certificate has expired`, `unable to get local issuer
    /// certificate`, and libcurl `no alternative certificate subject name matches target host
    /// name`; with Secure Transport (macOS) libcurl says `Certificate chain had an expired
    /// certificate`, `Untrusted root certificate` and `the certificate did not match "host"`.
    static func ofRefusedCertificate(_ detail: String) -> TLSError.Kind {
        let lowered = detail.lowercased()
        if lowered.contains("expired") || lowered.contains("not yet valid") { return .expiredCertificate }
        if lowered.contains("subject name") || lowered.contains("target host") || lowered.contains("hostname")
            || lowered.contains("certificate did not match")
        {
            return .hostNameMismatch
        }
        return .untrustedCertificate
    }

    /// What a failed handshake's message says went wrong, when it says: the server wants a
    /// client certificate, or shares no TLS version; `nil` otherwise. OpenSSL and LibreSSL
    /// report the server's alert (`tlsv13 alert certificate required`, `alert protocol
    /// version`); libcurl with Secure Transport says `the server most likely requires a client
    /// certificate`, `rejected the client certificate` or `A bad protocol version was
    /// encountered`.
    static func ofFailedHandshake(_ detail: String) -> TLSError.Kind? {
        let lowered = detail.lowercased()
        if lowered.contains("certificate required") || lowered.contains("alert bad certificate")
            || lowered.contains("alert unknown ca") || lowered.contains("certificate unknown")
            || lowered.contains("requires a client certificate") || lowered.contains("rejected the client certificate")
        {
            return .clientCertificateRequired
        }
        if lowered.contains("protocol version") || lowered.contains("unsupported protocol")
            || lowered.contains("no protocols available")
        {
            return .protocolVersion
        }
        return nil
    }

    /// Whether libcurl's message says it refused the server's certificate: how
    /// FoundationNetworking, which reports these as `URLError(.unknown)`, can be understood.
    static func isRefusedCertificate(_ detail: String) -> Bool {
        detail.hasPrefix("SSL certificate problem") || detail.hasPrefix("SSL: no alternative certificate subject name")
            || detail.hasPrefix("SSL: certificate subject name")
    }
}
