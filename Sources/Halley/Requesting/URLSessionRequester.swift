import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default requester: `URLSession`, on Linux through FoundationNetworking.
///
/// Redirects are followed; the response's ``ResourceResponse/url`` is where the body
/// finally came from. A redirect to another origin drops credential-bearing headers
/// (`Authorization`, `Cookie`, `Proxy-Authorization` and any you add), so a server cannot
/// bounce your token to a host you never trusted. Cancelling the calling task cancels the
/// `URLSessionTask`.
///
/// ```swift
/// let manager = ResourceManager(requester: URLSessionRequester())
/// ```
public struct URLSessionRequester: RequesterInterface {
    private let session: URLSession

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
        let delegate = RedirectPolicy(credentialHeaders: Set(credentialHeaders.map { $0.lowercased() }))
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
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
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
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

/// Strips credential headers from redirects that leave the original request's origin.
///
/// Holds only immutable state, so it is `Sendable` without locks.
private final class RedirectPolicy: NSObject, URLSessionTaskDelegate, Sendable {
    let credentialHeaders: Set<String>

    init(credentialHeaders: Set<String>) {
        self.credentialHeaders = credentialHeaders
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let from = task.originalRequest?.url.map(Origin.init)
        let to = request.url.map(Origin.init)
        guard from != to else { return completionHandler(request) }
        var stripped = request
        for (name, _) in request.allHTTPHeaderFields ?? [:] where credentialHeaders.contains(name.lowercased()) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        // Headers of the original request may be re-added by the loading system; clear them too.
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        completionHandler(stripped)
    }
}
