import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default requester: `URLSession`, on Linux through FoundationNetworking.
///
/// Redirects are followed; the response's ``ResourceResponse/url`` is where the body
/// finally came from. A redirect to an origin outside the request's
/// ``ResourceRequest/trustedOrigins`` drops credential-bearing headers (`Authorization`,
/// `Cookie`, `Proxy-Authorization`, the request's ``ResourceRequest/credentialHeaders`` and
/// any you add here), so a server cannot bounce your token to a host you never trusted;
/// URLSession on Linux would otherwise forward them. The body is counted as it arrives and
/// the transfer is cancelled past ``ResourceRequest/maxBodyBytes``, so a body that never
/// ends cannot exhaust memory. Cancelling the calling task cancels the `URLSessionTask`.
///
/// ```swift
/// let manager = ResourceManager(requester: URLSessionRequester())
/// ```
public struct URLSessionRequester: RequesterInterface, Sendable {
    private let owner: SessionOwner

    /// Header names never forwarded across origins on redirect.
    public static let defaultCredentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Creates a requester with its own session.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.ephemeral` by default, so nothing is
    ///     cached on disk or shared with other sessions (Halley has its own cache policy).
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted origins,
    ///     in addition to each request's own.
    public init(
        configuration: URLSessionConfiguration = .ephemeral,
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders
    ) {
        let delegate = SessionDelegate(credentialHeaders: Set(credentialHeaders.map { $0.lowercased() }))
        owner = SessionOwner(
            session: URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil),
            delegate: delegate)
    }

    /// Sends the request through the session.
    ///
    /// - Throws: `URLError` for transport failures, ``ResponseBodyTooLargeError`` past the
    ///   body limit, `CancellationError` when cancelled.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if let timeout = request.timeout {
            // FoundationNetworking truncates the interval to whole seconds (0.5 s times out at
            // once), so URLSession gets at least a second, rounded up; the engine enforces the
            // exact budget itself.
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            urlRequest.timeoutInterval = max(1, seconds.rounded(.up))
        }
        let transfer = SessionDelegate.Transfer(
            rules: SessionDelegate.Rules(
                credentialHeaders: Set(request.credentialHeaders.map { $0.lowercased() }),
                trustedOrigins: request.trustedOrigins.isEmpty ? [Origin(request.url)] : request.trustedOrigins),
            maxBytes: request.maxBodyBytes, url: request.url)
        let prepared = urlRequest
        let running = LockedValue<URLSessionDataTask?>(nil)
        let cancelled = LockedValue(false)
        let owner = self.owner
        // FoundationNetworking hops synchronously onto the session's work queue when a task is
        // created, resumed or cancelled. Doing that on a Dispatch thread keeps Swift's few
        // cooperative threads from ever waiting on a busy session.
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    let task = owner.session.dataTask(with: prepared)
                    running.set(task)
                    owner.delegate.start(task.taskIdentifier, transfer, continuation: continuation)
                    task.resume()
                    if cancelled.get() { task.cancel() }
                }
            }
        } onCancel: {
            cancelled.set(true)
            if let task = running.get() { DispatchQueue.global().async { task.cancel() } }
        }
        var headers = HTTPHeaders()
        var status = 200
        if let http = response as? HTTPURLResponse {
            status = http.statusCode
            for (name, value) in http.allHeaderFields {
                headers[String(describing: name)] = String(describing: value)
            }
        }
        return ResourceResponse(status: status, headers: headers, url: response.url ?? request.url, body: data)
    }
}

/// Owns a requester's session: when the last copy of the requester goes away, the session is
/// invalidated after its tasks finish, so neither it nor its delegate outlives the requester.
private final class SessionOwner: Sendable {
    let session: URLSession
    let delegate: SessionDelegate

    init(session: URLSession, delegate: SessionDelegate) {
        self.session = session
        self.delegate = delegate
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}

/// A response body passed the request's ``ResourceRequest/maxBodyBytes``; the transfer was
/// stopped while reading.
public struct ResponseBodyTooLargeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL being read.
    public let url: URL
    /// The limit in bytes.
    public let limit: Int

    /// Creates the error.
    public init(url: URL, limit: Int) {
        self.url = url
        self.limit = limit
    }

    /// `the response body of <url> is larger than <limit> bytes`.
    public var description: String { "the response body of \(url.absoluteString) is larger than \(limit) bytes" }
}

/// Collects each task's body (counting bytes as they arrive) and strips credential headers
/// from redirects that leave the trusted origins.
///
/// Per-task state lives in a lock-guarded table; everything else is immutable, so the
/// delegate is `Sendable`.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct Rules: Sendable {
        let credentialHeaders: Set<String>
        let trustedOrigins: Set<Origin>
    }

    struct Transfer: Sendable {
        let rules: Rules
        let maxBytes: Int?
        let url: URL
        var data = Data()
        var response: URLResponse?
        var tooLarge = false
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    }

    let credentialHeaders: Set<String>
    private let transfers = LockedValue<[Int: Transfer]>([:])

    init(credentialHeaders: Set<String>) {
        self.credentialHeaders = credentialHeaders
    }

    func start(_ task: Int, _ transfer: Transfer, continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        var transfer = transfer
        transfer.continuation = continuation
        transfers.withLock { $0[task] = transfer }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = transfers.withLock { transfers -> Bool in
            transfers[dataTask.taskIdentifier]?.response = response
            guard let limit = transfers[dataTask.taskIdentifier]?.maxBytes,
                response.expectedContentLength > Int64(limit)
            else { return false }
            transfers[dataTask.taskIdentifier]?.tooLarge = true
            return true
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Past the limit the caller is answered at once, not when URLSession finishes tearing
        // the transfer down: a server pushing an endless body keeps the callbacks coming.
        let overflow = transfers.withLock {
            transfers -> (CheckedContinuation<(Data, URLResponse), any Error>, Int, URL)? in
            guard var transfer = transfers[dataTask.taskIdentifier], !transfer.tooLarge else { return nil }
            // Take the entry out while appending so the Data buffer is uniquely referenced.
            transfers[dataTask.taskIdentifier] = nil
            transfer.data.append(data)
            var answer: (CheckedContinuation<(Data, URLResponse), any Error>, Int, URL)?
            if let limit = transfer.maxBytes, transfer.data.count > limit, let continuation = transfer.continuation {
                transfer.tooLarge = true
                transfer.data = Data()
                transfer.continuation = nil
                answer = (continuation, limit, transfer.url)
            }
            transfers[dataTask.taskIdentifier] = transfer
            return answer
        }
        if let (continuation, limit, url) = overflow {
            dataTask.cancel()
            continuation.resume(throwing: ResponseBodyTooLargeError(url: url, limit: limit))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            let continuation = transfer.continuation
        else { return }
        if transfer.tooLarge, let limit = transfer.maxBytes {
            continuation.resume(throwing: ResponseBodyTooLargeError(url: transfer.url, limit: limit))
        } else if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            continuation.resume(throwing: cancelled ? CancellationError() : error)
        } else if let response = transfer.response ?? task.response {
            continuation.resume(returning: (transfer.data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let rules = transfers.get()[task.taskIdentifier]?.rules
        let trusted = rules?.trustedOrigins ?? Set(task.originalRequest?.url.map { [Origin($0)] } ?? [])
        guard let target = request.url, !trusted.contains(Origin(target)) else { return completionHandler(request) }
        let names = credentialHeaders.union(rules?.credentialHeaders ?? [])
        var stripped = request
        for (name, _) in request.allHTTPHeaderFields ?? [:] where names.contains(name.lowercased()) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        completionHandler(stripped)
    }
}
