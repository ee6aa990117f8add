// swift-format-ignore-file
// (The original README's text, verbatim: the formatter must not touch it.)
import Foundation
import Halley

// The README's requester with the one change Swift 6 mode asks for: `completion` is
// `@Sendable`, because Alamofire's `responseData` handler is. Nothing else differs.

class AlamofireRequester: RequesterInterface {

    func requestResource(
        at url: URL,
        completion: @escaping @Sendable (Result<Data, Error>) -> Void
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
