import Foundation

/// How a requester sets up TLS: which certificate authorities it trusts, the client
/// certificate it presents, the public keys it pins and the oldest TLS version it accepts.
///
/// The default (``system``) is what every requester did before this value existed: the
/// system's trusted CAs, no client certificate, no pins, TLS 1.2 or later.
///
/// ```swift
/// // An API signed by a private CA, which also wants a client certificate.
/// var tls = TLSConfiguration()
/// tls.trustRoots = .systemAnd([.file("/etc/myapp/private-ca.pem")])
/// tls.clientIdentity = .init(certificate: .file("/etc/myapp/client.pem"), key: .file("/etc/myapp/client.key"))
/// tls.minimumVersion = .tls13
/// let requester = try CurlRequester(tls: tls)
/// ```
///
/// The host name is always checked against the certificate; there is no setting to turn that
/// off. Trusting any certificate at all exists only as
/// ``dangerouslyTrustingAnyCertificate()``, for a test server on your own machine.
///
/// Files are read, and every PEM checked, when a requester is made from the configuration:
/// a file that is missing or holds no certificate is a ``TLSConfigurationError`` naming it,
/// thrown by each request before anything is sent. ``validate()`` runs the same checks
/// earlier, for a program that wants to fail at start-up. ``CurlRequester`` honours every
/// setting; ``URLSessionRequester`` on Linux cannot, and throws
/// ``UnsupportedSettingsError`` naming what it cannot honour rather than ignore it (see
/// <doc:TLSAndProxies>).
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM text (RFC 7468): certificates, or a private key.
    public enum PEMSource: Sendable, Hashable, CustomStringConvertible {
        /// A file, by path.
        case file(String)
        /// PEM text you already hold (from a secret store, say). A key given this way is
        /// handed to the TLS library in memory, never written to disk.
        case data(Data)

        /// The path, or `PEM data (N bytes)`: how errors name the source.
        public var description: String {
            switch self {
            case .file(let path): return path
            case .data(let data): return "PEM data (\(data.count) bytes)"
            }
        }
    }

    /// The certificate authorities a server's certificate must chain to.
    public enum TrustRoots: Sendable, Hashable {
        /// The system's trusted CAs (the default).
        case system
        /// The system's trusted CAs and these, for an API signed by a private CA whose
        /// documents link to public sites.
        case systemAnd([PEMSource])
        /// These CAs only: the system's are not trusted.
        case only([PEMSource])
    }

    /// A client certificate and its private key, for servers that ask for one (mutual TLS).
    public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
        /// The PEM certificate (followed by its intermediates, if the server needs them).
        public var certificate: PEMSource
        /// The PEM private key; `nil` when it is in the certificate's PEM.
        public var key: PEMSource?
        /// The key's passphrase, when the key is encrypted.
        public var passphrase: String?

        /// Creates an identity.
        ///
        /// ```swift
        /// let identity = TLSConfiguration.ClientIdentity(
        ///     certificate: .file("client.pem"), key: .file("client.key"), passphrase: "s3cret")
        /// ```
        public init(certificate: PEMSource, key: PEMSource? = nil, passphrase: String? = nil) {
            self.certificate = certificate
            self.key = key
            self.passphrase = passphrase
        }

        /// The sources, never the passphrase.
        public var description: String {
            "ClientIdentity(certificate: \(certificate), key: \(key.map { "\($0)" } ?? "in the certificate's PEM")"
                + (passphrase == nil ? ")" : ", passphrase: <redacted>)")
        }
    }

    /// A TLS protocol version.
    public enum Version: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// TLS 1.2 (RFC 5246).
        case tls12 = 12
        /// TLS 1.3 (RFC 8446).
        case tls13 = 13

        /// Orders by version number.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `TLS 1.2` or `TLS 1.3`.
        public var description: String { self == .tls12 ? "TLS 1.2" : "TLS 1.3" }
    }

    /// The SHA-256 of a server's public key (its DER `SubjectPublicKeyInfo`), as
    /// `curl --pinnedpubkey` takes it: the connection fails unless the server's key is one
    /// of the pinned ones.
    ///
    /// Get it from the server's certificate with
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    ///
    /// ```swift
    /// let pin = try TLSConfiguration.PinnedKey("sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")
    /// ```
    public struct PinnedKey: Sendable, Hashable, CustomStringConvertible {
        /// The 32 bytes of the digest.
        public let sha256: Data

        /// Reads a base64 SHA-256, with or without curl's `sha256//` prefix.
        ///
        /// - Throws: ``TLSConfigurationError`` when the text is not the base64 of 32 bytes.
        public init(_ text: String) throws(TLSConfigurationError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let base64 = trimmed.hasPrefix("sha256//") ? String(trimmed.dropFirst(8)) : trimmed
            guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
                throw TLSConfigurationError(.invalidPinnedKey(text))
            }
            sha256 = digest
        }

        /// Takes the 32 bytes of a SHA-256 digest.
        ///
        /// - Throws: ``TLSConfigurationError`` when `sha256` is not 32 bytes long.
        public init(sha256: Data) throws(TLSConfigurationError) {
            guard sha256.count == 32 else {
                throw TLSConfigurationError(.invalidPinnedKey("\(sha256.count) bytes, not a SHA-256 digest"))
            }
            self.sha256 = sha256
        }

        /// `sha256//<base64>`, as curl writes it.
        public var description: String { "sha256//" + sha256.base64EncodedString() }
    }

    /// The CAs a server's certificate must chain to (``TrustRoots/system`` by default).
    public var trustRoots: TrustRoots
    /// The certificate presented when a server asks for one; none by default.
    public var clientIdentity: ClientIdentity?
    /// The public keys the server's key must be one of; empty (no pinning) by default.
    /// Pinning is checked in addition to the certificate chain.
    public var pinnedKeys: [PinnedKey]
    /// The oldest TLS version accepted (``Version/tls12`` by default).
    public var minimumVersion: Version
    /// Whether the server's certificate chain is accepted without checks. Only
    /// ``dangerouslyTrustingAnyCertificate()`` sets it: anyone on the network path can then
    /// read and change the traffic. The host name is checked all the same.
    public private(set) var dangerouslySkipsCertificateVerification: Bool = false

    /// Creates a configuration; with no arguments, the same as ``system``.
    ///
    /// ```swift
    /// let tls = TLSConfiguration(trustRoots: .only([.file("ca.pem")]), minimumVersion: .tls13)
    /// ```
    public init(
        trustRoots: TrustRoots = .system, clientIdentity: ClientIdentity? = nil, pinnedKeys: [PinnedKey] = [],
        minimumVersion: Version = .tls12
    ) {
        self.trustRoots = trustRoots
        self.clientIdentity = clientIdentity
        self.pinnedKeys = pinnedKeys
        self.minimumVersion = minimumVersion
    }

    /// The system's CAs, no client certificate, no pins, TLS 1.2 or later: what requesters
    /// use unless told otherwise.
    public static let system = TLSConfiguration()

    /// This configuration, but accepting any certificate chain: expired, self-signed, from
    /// any CA. For a test server on your own machine only; the host name is still checked
    /// against the certificate, and pinned keys still apply.
    ///
    /// ```swift
    /// let requester = try CurlRequester(tls: .system.dangerouslyTrustingAnyCertificate())
    /// ```
    public func dangerouslyTrustingAnyCertificate() -> TLSConfiguration {
        var copy = self
        copy.dangerouslySkipsCertificateVerification = true
        return copy
    }

    /// Whether this is ``system``, so a requester needs to set nothing.
    public var isSystemDefault: Bool { self == .system }

    /// Reads every file and checks every PEM now, as a requester does when it is made.
    ///
    /// ```swift
    /// do {
    ///     try tls.validate()
    /// } catch {
    ///     print(error)   // the client key /etc/myapp/client.key holds no private key
    /// }
    /// ```
    ///
    /// - Throws: ``TLSConfigurationError`` naming the first file or value that is missing,
    ///   unreadable or not the PEM it should be.
    public func validate() throws(TLSConfigurationError) {
        _ = try TLSMaterial(self)
    }

    /// Names of the settings that differ from ``system``, for errors that list what a
    /// requester cannot honour.
    var nonDefaultSettings: [String] {
        var names: [String] = []
        switch trustRoots {
        case .system: break
        case .systemAnd: names.append("trust roots (extra CA certificates)")
        case .only: names.append("trust roots (only the given CA certificates)")
        }
        if clientIdentity != nil { names.append("client identity (certificate and key)") }
        if !pinnedKeys.isEmpty { names.append("pinned public keys") }
        if minimumVersion != .tls12 { names.append("minimum TLS version (\(minimumVersion))") }
        if dangerouslySkipsCertificateVerification { names.append("dangerouslyTrustingAnyCertificate") }
        return names
    }
}

extension TLSConfiguration: CustomStringConvertible {
    /// The settings, never a passphrase nor PEM contents.
    public var description: String {
        var parts: [String] = []
        switch trustRoots {
        case .system: parts.append("trustRoots: system")
        case .systemAnd(let sources): parts.append("trustRoots: system and \(sources.map(\.description))")
        case .only(let sources): parts.append("trustRoots: only \(sources.map(\.description))")
        }
        if let clientIdentity { parts.append("clientIdentity: \(clientIdentity)") }
        if !pinnedKeys.isEmpty { parts.append("pinnedKeys: \(pinnedKeys.map(\.description))") }
        parts.append("minimumVersion: \(minimumVersion)")
        if dangerouslySkipsCertificateVerification { parts.append("dangerouslyTrustingAnyCertificate") }
        return "TLSConfiguration(\(parts.joined(separator: ", ")))"
    }
}

/// A ``TLSConfiguration`` names a file or value that cannot be used; nothing was sent.
///
/// ```swift
/// do {
///     try TLSConfiguration(clientIdentity: .init(certificate: .file("client.pem"), key: .file("client.key"))).validate()
/// } catch {
///     print(error.reason)   // .notPEM(source: "client.key", role: .clientKey, problem: "...")
/// }
/// ```
public struct TLSConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a PEM source was for, in messages.
    public enum Role: String, Sendable, Hashable {
        /// A CA certificate of ``TLSConfiguration/trustRoots``.
        case trustRoot = "CA certificate"
        /// The certificate of ``TLSConfiguration/clientIdentity``.
        case clientCertificate = "client certificate"
        /// The key of ``TLSConfiguration/clientIdentity``.
        case clientKey = "client key"
    }

    /// What is wrong.
    public enum Reason: Sendable, Hashable {
        /// The file does not exist or cannot be read.
        case unreadable(path: String, role: Role, problem: String)
        /// The source holds no PEM certificate (no `BEGIN CERTIFICATE` block).
        case noCertificate(source: String, role: Role)
        /// The source holds no PEM private key.
        case noPrivateKey(source: String, role: Role)
        /// A PEM block is malformed: unterminated, not base64, or not DER.
        case notPEM(source: String, role: Role, problem: String)
        /// The key is encrypted and no passphrase was given.
        case missingPassphrase(source: String)
        /// The TLS library refused the client certificate or key (a wrong passphrase, a key
        /// that does not match the certificate, an algorithm it does not support).
        case clientIdentityRefused(certificate: String, key: String, detail: String)
        /// A pinned key is not the base64 SHA-256 of a public key.
        case invalidPinnedKey(String)
        /// The system's CA bundle, which ``TLSConfiguration/TrustRoots/systemAnd(_:)`` adds to,
        /// was not found.
        case systemBundleNotFound(searched: [String])
        /// ``TLSConfiguration/TrustRoots/only(_:)`` lists no source: no server could be trusted.
        case noTrustRoots
    }

    /// What is wrong.
    public let reason: Reason

    /// Creates the error.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// One sentence naming the file (or value) and what is wrong with it.
    public var description: String {
        switch reason {
        case .unreadable(let path, let role, let problem):
            return "the \(role.rawValue) file \(path) cannot be read: \(problem)"
        case .noCertificate(let source, let role):
            return "the \(role.rawValue) \(source) holds no PEM certificate (no BEGIN CERTIFICATE block)"
        case .noPrivateKey(let source, let role):
            return "the \(role.rawValue) \(source) holds no PEM private key (no BEGIN ... PRIVATE KEY block)"
        case .notPEM(let source, let role, let problem):
            return "the \(role.rawValue) \(source) is not valid PEM: \(problem)"
        case .missingPassphrase(let source):
            return "the client key \(source) is encrypted; give its passphrase"
        case .clientIdentityRefused(let certificate, let key, let detail):
            return "the TLS library refused the client certificate \(certificate) with the key \(key): \(detail)"
        case .invalidPinnedKey(let text):
            return "the pinned key \"\(text)\" is not a base64 SHA-256 of a public key (sha256//<44 characters>)"
        case .systemBundleNotFound(let searched):
            return "cannot find the system's CA bundle to add CA certificates to (looked for "
                + "\(searched.joined(separator: ", "))); use TrustRoots.only with the CAs to trust"
        case .noTrustRoots:
            return "TrustRoots.only lists no CA certificate, so no server could be trusted"
        }
    }
}

/// What a requester needs from a ``TLSConfiguration``: every PEM read and checked once.
struct TLSMaterial: Sendable {
    /// The extra or only CAs, as one PEM text; `nil` for ``TLSConfiguration/TrustRoots/system``.
    let caBundle: Data?
    /// Whether the system's CAs are trusted too.
    let trustsSystem: Bool
    /// The single CA file of `.only([.file(path)])`, which libcurl can read itself.
    let onlyCAFile: String?
    /// Every CA certificate, DER, for platforms that take certificates rather than PEM.
    let caCertificates: [Data]
    let clientCertificate: TLSConfiguration.PEMSource?
    let clientKey: TLSConfiguration.PEMSource?
    let passphrase: String?

    /// The largest PEM file read: far more than any CA bundle (the system's is ~200 KB).
    static let maximumFileBytes = 16 * 1024 * 1024

    init(_ configuration: TLSConfiguration) throws(TLSConfigurationError) {
        var sources: [TLSConfiguration.PEMSource] = []
        switch configuration.trustRoots {
        case .system:
            trustsSystem = true
        case .systemAnd(let extra):
            trustsSystem = true
            sources = extra
        case .only(let only):
            guard !only.isEmpty else { throw TLSConfigurationError(.noTrustRoots) }
            trustsSystem = false
            sources = only
        }
        var bundle = Data()
        var certificates: [Data] = []
        for source in sources {
            let text = try Self.read(source, role: .trustRoot)
            let blocks = try Self.blocks(text, source: source, role: .trustRoot)
            let found = blocks.filter { $0.label == "CERTIFICATE" || $0.label == "TRUSTED CERTIFICATE" }
            guard !found.isEmpty else {
                throw TLSConfigurationError(.noCertificate(source: "\(source)", role: .trustRoot))
            }
            certificates += found.map(\.bytes)
            bundle.append(text)
            bundle.append(UInt8(ascii: "\n"))
        }
        caCertificates = certificates
        if case .only(let only) = configuration.trustRoots, only.count == 1, case .file(let path) = only[0] {
            onlyCAFile = path
        } else {
            onlyCAFile = nil
        }
        caBundle = sources.isEmpty && trustsSystem ? nil : bundle
        if let identity = configuration.clientIdentity {
            let certificateText = try Self.read(identity.certificate, role: .clientCertificate)
            let certificateBlocks = try Self.blocks(
                certificateText, source: identity.certificate, role: .clientCertificate)
            guard certificateBlocks.contains(where: { $0.label == "CERTIFICATE" }) else {
                throw TLSConfigurationError(.noCertificate(source: "\(identity.certificate)", role: .clientCertificate))
            }
            let keySource = identity.key ?? identity.certificate
            let keyBlocks =
                identity.key == nil
                ? certificateBlocks
                : try Self.blocks(Self.read(keySource, role: .clientKey), source: keySource, role: .clientKey)
            guard let key = keyBlocks.first(where: \.isPrivateKey) else {
                throw TLSConfigurationError(.noPrivateKey(source: "\(keySource)", role: .clientKey))
            }
            if key.isEncryptedKey && (identity.passphrase ?? "").isEmpty {
                throw TLSConfigurationError(.missingPassphrase(source: "\(keySource)"))
            }
            clientCertificate = identity.certificate
            clientKey = keySource
            passphrase = identity.passphrase
        } else {
            clientCertificate = nil
            clientKey = nil
            passphrase = nil
        }
    }

    /// The bytes of a source; a file must exist, be a regular file and fit the limit.
    static func read(_ source: TLSConfiguration.PEMSource, role: TLSConfigurationError.Role)
        throws(TLSConfigurationError) -> Data
    {
        switch source {
        case .data(let data):
            return data
        case .file(let path):
            func unreadable(_ problem: String) -> TLSConfigurationError {
                TLSConfigurationError(.unreadable(path: path, role: role, problem: problem))
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw unreadable("no such file")
            }
            guard !isDirectory.boolValue else { throw unreadable("it is a directory") }
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                let data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
                guard data.count <= maximumFileBytes else {
                    throw unreadable("it is larger than \(maximumFileBytes) bytes")
                }
                return data
            } catch let error as TLSConfigurationError {
                throw error
            } catch {
                throw unreadable((error as NSError).localizedDescription)
            }
        }
    }

    private static func blocks(_ data: Data, source: TLSConfiguration.PEMSource, role: TLSConfigurationError.Role)
        throws(TLSConfigurationError) -> [PEMBlock]
    {
        do {
            return try PEM.blocks(in: data)
        } catch {
            throw TLSConfigurationError(.notPEM(source: "\(source)", role: role, problem: error.summary))
        }
    }
}
