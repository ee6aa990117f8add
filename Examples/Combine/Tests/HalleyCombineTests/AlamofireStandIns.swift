import Foundation
import Halley

// Just enough of Alamofire's API for the original README's requester (READMERequester.swift,
// linked from the migration tests) to compile and run unchanged. Every request records its
// URL and then waits until it is cancelled: what the cancellation tests watch.

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

/// Alamofire's `AFDataResponse<Data>`, reduced to its `result`.
struct DataResponse {
    let result: Result<Data, URLError>
}

/// Alamofire's `DataRequest`: it never answers on its own; `cancel()` completes it with
/// `URLError(.cancelled)`, as Alamofire does.
final class DataRequest: Sendable {
    let url: URL
    private let handler = Guarded<(@Sendable (DataResponse) -> Void)?>(nil)

    init(url: URL) {
        self.url = url
    }

    @discardableResult
    func responseData(completionHandler: @escaping @Sendable (DataResponse) -> Void) -> DataRequest {
        handler.set(completionHandler)
        StubNetwork.started.mutate { $0.append(url.absoluteString) }
        return self
    }

    func cancel() {
        StubNetwork.cancelled.mutate { $0.append(url.absoluteString) }
        handler.take()?(DataResponse(result: .failure(URLError(.cancelled))))
    }
}

/// What the stand-in network was asked for and which requests were cancelled.
enum StubNetwork {
    static let started = Guarded<[String]>([])
    static let cancelled = Guarded<[String]>([])
}

/// A value behind a lock.
final class Guarded<Value: Sendable>: Sendable {
    // nonisolated(unsafe): read and written only while `lock` is held.
    private nonisolated(unsafe) var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set(_ newValue: Value) { mutate { $0 = newValue } }

    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

extension Guarded {
    /// Takes the value out, leaving `nil`.
    func take<Wrapped>() -> Value where Value == Wrapped? {
        mutate { value in
            defer { value = nil }
            return value
        }
    }
}
