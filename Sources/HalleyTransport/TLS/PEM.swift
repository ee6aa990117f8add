import Foundation

/// One `-----BEGIN LABEL-----` ... `-----END LABEL-----` block of a PEM text (RFC 7468).
struct PEMBlock: Sendable, Hashable {
    /// `CERTIFICATE`, `PRIVATE KEY`, `RSA PRIVATE KEY`, ...
    let label: String
    /// The decoded body: DER, or for a legacy encrypted key (see ``isLegacyEncrypted``) the
    /// encrypted bytes.
    let bytes: Data
    /// Whether RFC 1421 headers say the body is encrypted (`Proc-Type: 4,ENCRYPTED`), as
    /// `openssl genrsa -aes256` and `openssl rsa -aes256` write keys.
    let isLegacyEncrypted: Bool

    /// Whether the block holds a private key, in any of the forms OpenSSL writes.
    var isPrivateKey: Bool { label.hasSuffix("PRIVATE KEY") }
    /// Whether a passphrase is needed to use the key.
    var isEncryptedKey: Bool { label == "ENCRYPTED PRIVATE KEY" || isLegacyEncrypted }
}

/// Reads PEM text well enough to refuse what libcurl or the platform would refuse later with
/// a vaguer message: no block, a body that is not base64, DER whose outer length is wrong.
/// It does not interpret certificates or keys beyond that (the TLS library does).
enum PEM {
    /// Why a text is not usable PEM, without naming its source (the caller does).
    enum Problem: Error, Sendable, Hashable {
        /// A `BEGIN` line has no matching `END` line.
        case unterminated(label: String)
        /// The body of a block is not base64.
        case invalidBase64(label: String)
        /// The body decodes, but is not one complete DER structure.
        case invalidDER(label: String)

        var summary: String {
            switch self {
            case .unterminated(let label): return "its \(label) block has no END line"
            case .invalidBase64(let label): return "the body of its \(label) block is not base64"
            case .invalidDER(let label): return "its \(label) block does not hold a DER structure"
            }
        }
    }

    /// The blocks of `data` in order; text outside blocks (comments, `openssl x509 -text`
    /// output) is skipped, as OpenSSL does.
    static func blocks(in data: Data) throws(Problem) -> [PEMBlock] {
        let text = String(decoding: data, as: UTF8.self)
        var blocks: [PEMBlock] = []
        var label: String?
        var body = ""
        var inHeaders = false
        var encrypted = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            guard let open = label else {
                if let begun = marker(line, "BEGIN") {
                    label = begun
                    body = ""
                    inHeaders = true
                    encrypted = false
                }
                continue
            }
            if let ended = marker(line, "END") {
                guard ended == open else { throw .unterminated(label: open) }
                blocks.append(try block(label: open, body: body, encrypted: encrypted))
                label = nil
                continue
            }
            if marker(line, "BEGIN") != nil { throw .unterminated(label: open) }
            // RFC 1421 headers ("Proc-Type: 4,ENCRYPTED", "DEK-Info: ...") come first, then an
            // empty line, then the base64 body.
            if inHeaders {
                if line.contains(":") {
                    if line.hasPrefix("Proc-Type:") && line.uppercased().contains("ENCRYPTED") { encrypted = true }
                    continue
                }
                inHeaders = false
                if line.isEmpty { continue }
            }
            body += line
        }
        if let open = label { throw .unterminated(label: open) }
        return blocks
    }

    /// The label of a `-----BEGIN LABEL-----` (or `END`) line.
    private static func marker(_ line: String, _ kind: String) -> String? {
        let prefix = "-----\(kind) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count >= prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }

    private static func block(label: String, body: String, encrypted: Bool) throws(Problem) -> PEMBlock {
        guard !body.isEmpty, let bytes = Data(base64Encoded: body) else { throw .invalidBase64(label: label) }
        // An encrypted legacy body is ciphertext, not DER.
        if !encrypted && !isDER(bytes) { throw .invalidDER(label: label) }
        return PEMBlock(label: label, bytes: bytes, isLegacyEncrypted: encrypted)
    }

    /// Whether `bytes` is exactly one DER SEQUENCE: its tag, and a length that covers the
    /// rest. Every PEM type TLS uses (certificates, PKCS#1, PKCS#8, SEC 1 keys) is one.
    static func isDER(_ bytes: Data) -> Bool {
        var reader = DERReader(Array(bytes))
        guard let element = reader.next(), element.tag == 0x30 else { return false }
        return element.end == bytes.count
    }

    /// The DER `SubjectPublicKeyInfo` of a DER certificate: what a pinned key's SHA-256 is
    /// taken of (as `curl --pinnedpubkey` and HPKP do), or `nil` when the certificate is not
    /// shaped as RFC 5280 says.
    static func subjectPublicKeyInfo(ofCertificate der: Data) -> Data? {
        let bytes = Array(der)
        var outer = DERReader(bytes)
        // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { ... }, ... }
        guard let certificate = outer.next(), certificate.tag == 0x30 else { return nil }
        var inCertificate = DERReader(bytes, range: certificate.content)
        guard let tbs = inCertificate.next(), tbs.tag == 0x30 else { return nil }
        var fields = DERReader(bytes, range: tbs.content)
        guard var field = fields.next() else { return nil }
        // [0] EXPLICIT version, when present.
        if field.tag == 0xA0 {
            guard let next = fields.next() else { return nil }
            field = next
        }
        // serialNumber, then signature, issuer, validity, subject: four more before the key.
        guard field.tag == 0x02 else { return nil }
        for _ in 0..<4 {
            guard let skipped = fields.next(), skipped.tag == 0x30 else { return nil }
            _ = skipped
        }
        guard let key = fields.next(), key.tag == 0x30 else { return nil }
        return Data(bytes[key.start..<key.end])
    }
}

/// Walks DER elements one level at a time.
struct DERReader {
    /// One element: its tag, where it starts and ends, and where its content is.
    struct Element {
        let tag: UInt8
        let start: Int
        let content: Range<Int>
        var end: Int { content.upperBound }
    }

    private let bytes: [UInt8]
    private var index: Int
    private let limit: Int

    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        index = range?.lowerBound ?? 0
        limit = range?.upperBound ?? bytes.count
    }

    /// The next element at this level, or `nil` at the end or on a malformed length.
    mutating func next() -> Element? {
        let start = index
        guard index + 2 <= limit else { return nil }
        let tag = bytes[index]
        // High tag numbers (0x1F) do not occur in the structures read here.
        guard tag & 0x1F != 0x1F else { return nil }
        var length = Int(bytes[index + 1])
        index += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            // Indefinite lengths are BER, not DER; four bytes cover any real certificate.
            guard count >= 1, count <= 4, index + count <= limit else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length <= limit - index else { return nil }
        let content = index..<(index + length)
        index += length
        return Element(tag: tag, start: start, content: content)
    }
}
