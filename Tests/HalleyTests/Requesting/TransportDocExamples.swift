import Foundation
import Testing

@testable import Halley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `///` examples of the transport API, compiled as written (they are never run: they
/// name hosts that do not exist). A change that breaks an example breaks the build.
enum TransportDocExamples {
    struct LoggingCurlRequester: RequesterInterface, Sendable {
        let base: CurlRequester
        var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }  // true
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            print(request.method, request.url)
            return try await base.response(for: request)
        }
    }

    struct LoggingCurlRequesterOnItsThread: RequesterInterface, Sendable {
        let base: CurlRequester
        var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        var preferredTaskExecutor: (any TaskExecutor)? { base.preferredTaskExecutor }
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            print(request.method, request.url)
            return try await base.response(for: request)
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    static func curlPreferredTaskExecutor() throws {
        let requester = try CurlRequester()
        print(requester.preferredTaskExecutor != nil)  // true
    }

    static func curlRequester() async throws {
        let requester = try CurlRequester(maxConnectionsPerHost: 16)
        let manager = ResourceManager(requester: requester)
        let contact = try await manager.resource(from: URL(string: "https://api.example.com/contacts/1")!)
        _ = contact
    }

    static func curlAvailability() throws -> (any RequesterInterface, CurlRequester) {
        let requester: any RequesterInterface = try CurlRequester.isAvailable ? CurlRequester() : URLSessionRequester()
        print(CurlRequester.libraryVersion ?? "no libcurl")
        let custom = try CurlRequester(credentialHeaders: ["authorization", "x-api-key"], maxRedirects: 5)
        return (requester, custom)
    }

    static func curlResponse() async throws {
        var request = ResourceRequest(
            url: URL(string: "https://api.example.com/orders")!, method: .post,
            headers: ["Content-Type": "application/json"], body: Data(#"{"item": 1}"#.utf8),
            timeout: .seconds(10))
        request.maxBodyBytes = 1_000_000
        let response = try await CurlRequester().response(for: request)
        print(response.status, response.url, response.body.count)
    }

    static func curlUnavailable() {
        do {
            let requester = try CurlRequester()
            print("using libcurl", requester)
        } catch {
            // `init` throws only CurlUnavailableError (typed throws).
            print("falling back to URLSession:", error.reason)
        }
    }

    static func defaultRequester() throws -> (
        ResourceManager, CurlRequester, URLSessionRequester, any RequesterInterface
    ) {
        let manager = ResourceManager(requester: DefaultRequester.make())  // the same as ResourceManager()
        let curl = try CurlRequester()  // ask for one explicitly
        let session = URLSessionRequester()
        let requester = DefaultRequester.make(credentialHeaders: ["authorization", "x-api-key"])
        return (manager, curl, session, requester)
    }

    static func urlSessionRequester() async throws {
        let manager = ResourceManager(requester: URLSessionRequester(maxConnectionsPerHost: 16))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/1.0"]
        let requester = URLSessionRequester(configuration: configuration, maxConnectionsPerHost: 32)
        // Your session: its delegate can pin certificates or present a client certificate.
        let session = URLSession(configuration: .default)
        let own = ResourceManager(requester: URLSessionRequester(session: session))
        let response = try await URLSessionRequester().response(
            for: ResourceRequest(url: URL(string: "https://api.example.com/")!, timeout: .seconds(10)))
        print(response.status, response.headers["Content-Type"] ?? "")
        _ = (manager, requester, own)
    }

    static func errors() async throws {
        var request = ResourceRequest(url: URL(string: "https://api.example.com/big")!)
        request.maxBodyBytes = 1_000_000
        do {
            _ = try await CurlRequester().response(for: request)
        } catch let error as ResponseBodyTooLargeError {
            print(error.limit)  // 1000000
        }

        let requester = try CurlRequester(maxHeaderBytes: 64 * 1024, maxHeaderCount: 200)
        do {
            _ = try await requester.response(for: ResourceRequest(url: URL(string: "https://api.example.com/")!))
        } catch let error as ResponseHeadersTooLargeError {
            print(error)  // the response headers of https://api.example.com/ are more than 200 fields
        }

        do {
            _ = try await CurlRequester().response(
                for: ResourceRequest(url: URL(string: "https://api.example.com/loop")!))
        } catch let error as RedirectError {
            if case .tooManyRedirects(let limit) = error.reason { print("gave up after \(limit) redirects") }
        }
    }

    /// The "Which HTTP requester" block of the ChoosingARequester guide.
    static func readme(mySession: URLSession) throws {
        let manager = ResourceManager()  // the platform's default
        let curl = ResourceManager(requester: try CurlRequester())  // throws CurlUnavailableError
        let session = ResourceManager(requester: URLSessionRequester())  // URLSession everywhere
        let mine = ResourceManager(requester: URLSessionRequester(session: mySession))  // your URLSession's config
        _ = (manager, curl, session, mine)
    }
}

@Suite struct TransportDocExampleTests {
    /// The examples that need no network run, and build what their comments say.
    @Test func theOfflineExamplesBuildWhatTheySay() throws {
        let (available, custom) = try TransportDocExamples.curlAvailability()
        // Where libcurl loads (every Linux machine with Swift), the first example picks it.
        #expect((available is CurlRequester) == CurlRequester.isAvailable, "\(available)")
        #expect(String(describing: custom) == "CurlRequester(\(CurlRequester.libraryVersion ?? "libcurl"))")

        // Prints which requester it chose; it must not trap either way.
        TransportDocExamples.curlUnavailable()

        let (manager, curl, session, requester) = try TransportDocExamples.defaultRequester()
        #expect(String(describing: curl).hasPrefix("CurlRequester(libcurl/"), "\(curl)")
        #expect(session.supportedSchemes == ["http", "https"])
        #if os(Linux)
            // "the same as ResourceManager()": libcurl on Linux, with the given credential names.
            #expect(manager.requester is CurlRequester)
            #expect(requester is CurlRequester, "\(requester)")
        #else
            #expect(manager.requester is URLSessionRequester)
            #expect(requester is URLSessionRequester)
        #endif
    }
}
