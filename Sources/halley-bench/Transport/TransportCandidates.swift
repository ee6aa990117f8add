import Halley

extension TransportScenario {
    /// Requesters measured after URLSession's: libcurl's, when it loads.
    static var extraCandidates: [Candidate] {
        guard CurlRequester.isAvailable else { return [] }
        return [Candidate(name: "curl", make: makeCurl)]
    }

    @Sendable private static func makeCurl() -> any RequesterInterface {
        do {
            return try CurlRequester()
        } catch {
            return URLSessionRequester()
        }
    }
}
