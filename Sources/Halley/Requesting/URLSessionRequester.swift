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
/// URLSession on Linux would otherwise forward them. Cancelling the calling task cancels
/// the `URLSessionTask`.
///
/// ```swift
/// let manager = ResourceManager(requester: URLSessionRequester())
/// ```
public struct URLSessionRequester: RequesterInterface {
    private let session: URLSession
    private let policy: RedirectPolicy

    /// Header names never forwarded across origins on redirect.
    public static let defaultCredentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Creates a requester with its own session.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.ephemeral` by default, so nothing is
    ///     cached on disk or shared with other sessions (Halley has its own cache policy).
    ///   - credentialHeaders: Header names removed when a redirect leaves the origin.
    public init(
        configuration: URLSessionConfiguration = .ephemeral,
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders
    ) {
        policy = RedirectPolicy(credentialHeaders: Set(credentialHeaders.map { $0.lowercased() }))
        session = URLSession(configuration: configuration, delegate: policy, delegateQueue: nil)
    }

    /// Sends the request through the session.
    ///
    /// - Throws: `URLError` for transport failures, `CancellationError` when cancelled.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if let timeout = request.timeout {
            urlRequest.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
        let running = LockedValue<URLSessionDataTask?>(nil)
        let session = self.session
        let policy = self.policy
        let rules = RedirectPolicy.Rules(
            credentialHeaders: Set(request.credentialHeaders.map { $0.lowercased() }),
            trustedOrigins: request.trustedOrigins.isEmpty ? [Origin(request.url)] : request.trustedOrigins)
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // The task's identifier is only known once it exists; the completion handler
                // reads it through this box to forget the task's redirect rules.
                let identifier = LockedValue<Int?>(nil)
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let id = identifier.get() { policy.forget(id) }
                    if let error {
                        let cancelled = (error as? URLError)?.code == .cancelled
                        continuation.resume(throwing: cancelled ? CancellationError() : error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                running.set(task)
                identifier.set(task.taskIdentifier)
                policy.remember(rules, for: task.taskIdentifier)
                task.resume()
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            running.get()?.cancel()
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

/// Strips credential headers from redirects that leave the trusted origins.
///
/// Per-task rules live in a lock-guarded table; everything else is immutable, so the
/// delegate is `Sendable`.
private final class RedirectPolicy: NSObject, URLSessionTaskDelegate, Sendable {
    struct Rules: Sendable {
        let credentialHeaders: Set<String>
        let trustedOrigins: Set<Origin>
    }

    let credentialHeaders: Set<String>
    private let rules = LockedValue<[Int: Rules]>([:])

    init(credentialHeaders: Set<String>) {
        self.credentialHeaders = credentialHeaders
    }

    func remember(_ taskRules: Rules, for task: Int) {
        rules.withLock { $0[task] = taskRules }
    }

    func forget(_ task: Int) {
        rules.withLock { $0[task] = nil }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let taskRules = rules.get()[task.taskIdentifier]
        let trusted = taskRules?.trustedOrigins ?? Set(task.originalRequest?.url.map { [Origin($0)] } ?? [])
        guard let target = request.url, !trusted.contains(Origin(target)) else { return completionHandler(request) }
        let names = credentialHeaders.union(taskRules?.credentialHeaders ?? [])
        var stripped = request
        for (name, _) in request.allHTTPHeaderFields ?? [:] where names.contains(name.lowercased()) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        completionHandler(stripped)
    }
}
