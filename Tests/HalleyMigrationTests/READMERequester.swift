// swift-format-ignore-file
// (The original README's text, verbatim: the formatter must not touch it.)
import Foundation
import Halley

// The requester snippet of the original Halley's README, verbatim. Swift 5 mode only: with
// Alamofire 5.9+ (and this stand-in), `responseData`'s handler is `@Sendable`, so Swift 6
// asks for `@Sendable` on `completion`; HalleyMigrationSwift6Tests has that one-word variant.

// MARK: Traversing

class AlamofireRequester: RequesterInterface {

    func requestResource(
        at url: URL,
        completion: @escaping (Result<Data, Error>) -> Void
    ) -> RequestContainerInterface {
        let request = AF
            .request(Router(url: url, method: .get))
            .responseData() { response in
                completion(response.result.mapError { $0 as Error })
            }
        return RequestContainer(dataRequest: request)
    }
}

struct RequestContainer: RequestContainerInterface {

    let dataRequest: DataRequest

    func cancelRequest() {
        dataRequest.cancel()
    }
}
