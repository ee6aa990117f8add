import Foundation
import HalleyHAL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The user-facing words of the transport's errors, by the rules of HalleyHAL's
// `ErrorWording` (LocalizedErrors.swift there says what each part is for).

extension HTTPError: UserFacingError {
    /// `The request to <site> failed: <the server's message>.`, or the status when the body
    /// has no message to show.
    package func words(at url: URL?) -> ErrorWords {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        let statusText = "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
        let message = ErrorWording.serverMessage(in: body, contentType: headers["Content-Type"], reason: reason)
        let request = ErrorWording.theRequest(to: self.url)
        return ErrorWords(
            description: message.map { ErrorWording.sentence("\(request) failed: \($0)") }
                ?? "\(request) failed (\(statusText)).",
            reason: "\(ErrorWording.theServer(self.url)) answered HTTP \(status)"
                + (reason.isEmpty ? "." : " (\(reason))."),
            suggestion: ErrorWording.suggestion(forStatus: status))
    }
}

extension TransportError: UserFacingError {
    /// What failed, naming the host and port, without the transport's words unless they can
    /// be shown.
    package func words(at url: URL?) -> ErrorWords {
        if let tlsError { return tlsError.words(at: url) }
        if let proxyError { return proxyError.words(at: url) }
        if let redirectError { return redirectError.words(at: url) }
        if let kind = tlsKind { return TLSError(kind: kind, url: self.url, detail: detail).words(at: url) }
        let server = "The server \(hostAndPort)"
        let network = "Check your network connection and try again."
        switch code {
        case .hostNotFound:
            return ErrorWords(
                description: "\(server) could not be found.", reason: "Its name does not resolve to an address.",
                suggestion: "Check the address and your network connection.")
        case .connectionRefused:
            return ErrorWords(
                description: "\(server) refused the connection.", reason: "Nothing answers on its port.",
                suggestion: "Check that the server is running, then try again.")
        case .hostUnreachable:
            return ErrorWords(
                description: "\(server) could not be reached.", reason: "The network or the server is unreachable.",
                suggestion: "Check your network connection.")
        case .connectionReset:
            return ErrorWords(
                description: "The connection to \(hostAndPort) was lost.",
                reason: "It closed before the whole reply arrived.", suggestion: "Try again.")
        case .timedOut:
            return ErrorWords(
                description: "\(server) did not answer in time.",
                reason: limit.map { "No reply came within \($0.spoken)." } ?? "No reply came in time.",
                suggestion: network)
        case .badResponse:
            return ErrorWords(
                description: "\(server) sent a reply that could not be read.", reason: "It did not answer in HTTP.",
                suggestion: "Try again later.")
        case .proxyFailed:
            return ErrorWords(
                description: "The request to \(hostAndPort) could not go through its proxy.",
                reason: "The proxy failed.", suggestion: "Check the proxy settings.")
        case .tooManyRedirects, .redirectRefused:
            return ErrorWords(
                description: "\(server) redirected the request where it cannot be followed.",
                reason: code == .tooManyRedirects ? "It redirected too many times." : "The redirect was refused.",
                suggestion: nil)
        default:
            return ErrorWords(
                description: "The request to \(hostAndPort) failed.",
                reason: ErrorWording.shown(detail).map(ErrorWording.sentence) ?? "The connection failed.",
                suggestion: network)
        }
    }
}

extension TLSError: UserFacingError {
    /// `A secure connection to <host> could not be made.`, with the kind as the reason.
    package func words(at url: URL?) -> ErrorWords {
        let site = ErrorWording.site(self.url) ?? host
        let reason: String
        var suggestion: String?
        switch kind {
        case .untrustedCertificate: reason = "Its certificate is not trusted."
        case .expiredCertificate:
            reason = "Its certificate has expired or is not valid yet."
            suggestion = "Check the date and time of this device."
        case .hostNameMismatch: reason = "Its certificate is for another server."
        case .pinnedKeyMismatch: reason = "Its key is not one the app expects."
        case .clientCertificateRequired: reason = "It asks for a client certificate."
        case .protocolVersion: reason = "It offers no TLS version the app accepts."
        default:
            reason = "The TLS handshake failed."
            suggestion = "Try again."
        }
        return ErrorWords(
            description: "A secure connection to \(site) could not be made.", reason: reason, suggestion: suggestion)
    }
}

extension ProxyError: UserFacingError {
    /// `The request to <host> could not go through the proxy.`, naming the proxy (never its
    /// credentials) in the reason.
    package func words(at url: URL?) -> ErrorWords {
        let site = ErrorWording.site(self.url) ?? "the server"
        let reason: String
        switch self.reason {
        case .cannotResolve: reason = "The proxy \(proxy) could not be found."
        case .cannotConnect: reason = "The proxy \(proxy) could not be reached."
        case .authenticationRequired: reason = "The proxy \(proxy) asks for credentials."
        case .tunnelRefused(let status): reason = "The proxy \(proxy) refused the connection (HTTP \(status))."
        case .credentialsInClear: reason = "Credentials would have gone unencrypted through the proxy \(proxy)."
        case .invalidProxyURL: reason = "The proxy setting cannot be used."
        }
        return ErrorWords(
            description: "The request to \(site) could not go through the proxy.", reason: reason,
            suggestion: "Check the proxy settings.")
    }
}

extension RedirectError: UserFacingError {
    /// `The server <host> redirected the request where it cannot be followed.`
    package func words(at url: URL?) -> ErrorWords {
        let reason: String
        switch self.reason {
        case .tooManyRedirects(let limit): reason = "It redirected more than \(limit) times."
        case .unsupportedScheme(let scheme):
            reason =
                ErrorWording.shown(scheme).map { "The redirect leads to a \($0) address." }
                ?? "The redirect leads to an address the app does not fetch."
        case .invalidLocation: reason = "The redirect leads to no valid address."
        }
        return ErrorWords(
            description: "\(ErrorWording.theServer(self.url)) redirected the request where it cannot be followed.",
            reason: reason, suggestion: nil)
    }
}

extension ResponseBodyTooLargeError: UserFacingError {
    /// `The reply from <host> is too large.`, with the limit.
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theReply(from: self.url)) is too large.",
            reason: "It is larger than \(limit) bytes, the most the app accepts.", suggestion: nil)
    }
}

extension ResponseHeadersTooLargeError: UserFacingError {
    /// `The reply from <host> is too large.`, with the limit on its headers.
    package func words(at url: URL?) -> ErrorWords {
        let reason: String
        switch limit {
        case .bytes(let bytes): reason = "Its headers are larger than \(bytes) bytes, the most the app accepts."
        case .count(let count): reason = "It has more than \(count) header fields, the most the app accepts."
        }
        return ErrorWords(
            description: "\(ErrorWording.theReply(from: self.url)) is too large.", reason: reason, suggestion: nil)
    }
}

extension CurlUnavailableError: UserFacingError {
    /// `The network library libcurl could not be loaded.`
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "The network library libcurl could not be loaded.",
            reason: "It is missing, older than 7.68, or failed to start.",
            suggestion: "Install libcurl 7.68 or later.")
    }
}

extension UnsupportedSettingsError: UserFacingError {
    /// `A connection setting is not supported here.`, naming the settings.
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "A connection setting of the app is not supported here.",
            reason: ErrorWording.sentence("\(requester) cannot honour \(settings.joined(separator: ", "))"),
            suggestion: ErrorWording.shown(advice).map(ErrorWording.sentence))
    }
}

extension TLSConfigurationError: UserFacingError {
    /// `The secure connection settings of the app cannot be used.`
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "The secure connection settings of the app cannot be used.",
            reason: ErrorWording.shown(description).map(ErrorWording.sentence) ?? "A certificate or key is unusable.",
            suggestion: nil)
    }
}

extension UnimplementedRequesterError: UserFacingError {
    /// `The request could not be sent.`: the requester is the app's mistake.
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theRequest(to: url)) could not be sent.",
            reason: "The app's requester \(requester) implements no way to send it.", suggestion: nil)
    }
}

extension HTTPError: LocalizedError {
    /// `The request to <host> failed: <the body's message>.` (a JSON body's `detail`, `title`
    /// or `message`, never the JSON), or `… failed (HTTP 404 Not Found).`
    public var errorDescription: String? { words(at: nil).description }
    /// `The server <host> answered HTTP 422 (Unprocessable Entity).`
    public var failureReason: String? { words(at: nil).reason }
    /// What to do after this status (sign in, reload, check the values, wait), when anything.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ResponseBodyTooLargeError: LocalizedError {
    /// `The reply from <host> is too large.`
    public var errorDescription: String? { words(at: nil).description }
    /// The limit in bytes.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ResponseHeadersTooLargeError: LocalizedError {
    /// `The reply from <host> is too large.`
    public var errorDescription: String? { words(at: nil).description }
    /// The limit on the headers that was passed.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension RedirectError: LocalizedError {
    /// `The server <host> redirected the request where it cannot be followed.`
    public var errorDescription: String? { words(at: nil).description }
    /// Why the redirect was not followed.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension CurlUnavailableError: LocalizedError {
    /// `The network library libcurl could not be loaded.`
    public var errorDescription: String? { words(at: nil).description }
    /// `It is missing, older than 7.68, or failed to start.` (``reason`` has the loader's words.)
    public var failureReason: String? { words(at: nil).reason }
    /// `Install libcurl 7.68 or later.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TransportError: LocalizedError {
    /// What failed, naming the host: `The server nosuch.invalid could not be found.`
    public var errorDescription: String? { words(at: nil).description }
    /// Why, in general words: `Its name does not resolve to an address.`
    public var failureReason: String? { words(at: nil).reason }
    /// What to do: `Check the address and your network connection.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TLSError: LocalizedError {
    /// `A secure connection to <host> could not be made.`
    public var errorDescription: String? { words(at: nil).description }
    /// What is wrong with the certificate or the handshake.
    public var failureReason: String? { words(at: nil).reason }
    /// What to do, when the user can do something (check the device's clock).
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ProxyError: LocalizedError {
    /// `The request to <host> could not go through the proxy.`
    public var errorDescription: String? { words(at: nil).description }
    /// What the proxy did, naming it without credentials.
    public var failureReason: String? { words(at: nil).reason }
    /// `Check the proxy settings.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TLSConfigurationError: LocalizedError {
    /// `The secure connection settings of the app cannot be used.`
    public var errorDescription: String? { words(at: nil).description }
    /// The file or value and what is wrong with it.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension UnsupportedSettingsError: LocalizedError {
    /// `A connection setting of the app is not supported here.`
    public var errorDescription: String? { words(at: nil).description }
    /// The requester and the settings it cannot honour.
    public var failureReason: String? { words(at: nil).reason }
    /// What to do instead.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension UnimplementedRequesterError: LocalizedError {
    /// `The request could not be sent.`
    public var errorDescription: String? { words(at: nil).description }
    /// The requester type that implements no way to send it.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}
