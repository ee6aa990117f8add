import Foundation
import Halley

// Just enough of Alamofire's API for the original Halley README's requester to compile and
// run unchanged: `AF.request(_:)`, `DataRequest.responseData(_:)`, `cancel()` and the
// response's `result`. Answers come from `StubNetwork`, asynchronously, like a network.

/// Alamofire's `AF` namespace.
enum AF {
    static func request(_ router: Router) -> DataRequest {
        DataRequest(url: router.url)
    }
}

/// The README's `Router`: the app's own request builder.
struct Router {
    let url: URL
    let method: RequestMethod
}

/// The error type of a stand-in response, as Alamofire's `AFError`.
struct AFError: Error, Equatable {
    let url: URL
    let reason: String
}

/// Alamofire's `AFDataResponse<Data>`, reduced to its `result`.
struct DataResponse {
    let result: Result<Data, AFError>
}

/// Alamofire's `DataRequest`: `Sendable` like Alamofire's own, its state behind a lock.
final class DataRequest: Sendable {
    let url: URL
    private let cancelled = LockedValue(false)

    init(url: URL) {
        self.url = url
    }

    @discardableResult
    func responseData(completionHandler: @escaping @Sendable (DataResponse) -> Void) -> DataRequest {
        let url = self.url
        let cancelled = self.cancelled
        DispatchQueue.global().asyncAfter(deadline: .now() + StubNetwork.latency) {
            if cancelled.get() {
                completionHandler(DataResponse(result: .failure(AFError(url: url, reason: "cancelled"))))
                return
            }
            StubNetwork.record(url)
            if let body = StubNetwork.body(for: url) {
                completionHandler(DataResponse(result: .success(body)))
            } else {
                completionHandler(DataResponse(result: .failure(AFError(url: url, reason: "404"))))
            }
        }
        return self
    }

    func cancel() {
        cancelled.set(true)
    }

    var isCancelled: Bool { cancelled.get() }
}

/// The documents the stand-in network answers with, and the URLs it was asked for.
enum StubNetwork {
    static let latency: TimeInterval = 0.005
    private static let documents = LockedValue<[String: Data]>([:])
    private static let requested = LockedValue<[String]>([])

    static func register(_ url: String, _ json: String) {
        documents.withLock { $0[url] = Data(json.utf8) }
    }

    static func body(for url: URL) -> Data? {
        documents.get()[url.absoluteString]
    }

    static func record(_ url: URL) {
        requested.withLock { $0.append(url.absoluteString) }
    }

    /// The requested URLs that start with `prefix`.
    static func requests(startingWith prefix: String) -> [String] {
        requested.get().filter { $0.hasPrefix(prefix) }
    }
}
