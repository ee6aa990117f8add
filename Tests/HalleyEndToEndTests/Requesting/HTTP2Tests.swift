import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// HTTP/2 under real conditions, against nginx over HTTPS with a private CA (issue #28): a
/// GOAWAY in the middle of a traversal, a server that allows fewer streams than a call's
/// limit, streams reset by the server, and the one connection a traversal needs.
///
/// `CurlRequester` only: on Linux `URLSessionRequester` cannot trust a private CA (it throws
/// `UnsupportedSettingsError` for the trust roots, see `TLSTests`).
@Suite struct HTTP2Tests {
    func requester(_ version: CurlRequester.HTTPVersion = .automatic) async throws -> CurlRequester {
        let certificates = try await TLSLab.certificates()
        let tls = TLSConfiguration(trustRoots: .only([.file(certificates.path("ca.pem"))]))
        return try CurlRequester(tls: tls, proxy: .direct, httpVersion: version)
    }

    func manager(_ requester: CurlRequester, retries: RetryPolicy = .none) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.requestTimeout = .seconds(10)
        configuration.retryPolicy = retries
        return ResourceManager(requester: requester, configuration: configuration)
    }

    /// The whole tree, 40 resources, `limit` requests at a time.
    func traverse(_ url: URL, with manager: ResourceManager, limit: Int) async throws -> JSONValue {
        var options = CallOptions()
        options.maxConcurrency = limit
        return try await manager.resource(from: url, includes: ["[child].[child].[child]"], options: options)
    }

    /// The ids of the tree's 27 leaves, as the traversal merged them.
    func leaves(_ tree: JSONValue) -> [String] {
        var ids: [String] = []
        for one in tree["child"]?.arrayValue ?? [] {
            for two in one["child"]?.arrayValue ?? [] {
                for three in two["child"]?.arrayValue ?? [] { ids.append(three["id"]?.stringValue ?? "?") }
            }
        }
        return ids
    }

    static let leafIDs: [String] = (0..<27).map { "0.\($0 / 9).\($0 / 3 % 3).\($0 % 3)" }

    /// Traverses the tree on `port` of `nginx`, `limit` requests at a time, under a marker
    /// of its own (`name` and a UUID); checks that every leaf came back, and returns what
    /// nginx logged for the traversal's 40 requests.
    func traverseTree(
        _ nginx: HTTP2Nginx, port: Int, name: String, version: CurlRequester.HTTPVersion = .automatic, limit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [HTTP2Nginx.Entry] {
        let marker = "\(name)-\(UUID().uuidString)"
        let tree = try await traverse(
            nginx.tree(port: port, marker: marker), with: manager(try await requester(version)), limit: limit)
        #expect(leaves(tree) == Self.leafIDs, sourceLocation: sourceLocation)
        return try await nginx.entries(containing: marker, count: 40)
    }

    // MARK: GOAWAY

    @Test(arguments: [CurlRequester.HTTPVersion.automatic, .http1Only])
    func aConnectionEndingMidTraversalIsReplacedWithoutRepeatingARequest(version: CurlRequester.HTTPVersion)
        async throws
    {
        let nginx = try await TLSLab.http2()
        let entries = try await traverseTree(
            nginx, port: nginx.goawayPort, name: "goaway-\(version)", version: version, limit: 16)
        // Each resource reached nginx once: nothing was lost, nothing sent twice.
        #expect(entries.count == 40, "\(entries)")
        #expect(Set(entries.map(\.target)).count == 40, "\(entries)")
        #expect(entries.allSatisfy { $0.status == 200 }, "\(entries)")
        #expect(entries.allSatisfy { $0.proto == (version == .automatic ? "HTTP/2.0" : "HTTP/1.1") }, "\(entries)")
        // nginx ended every connection after 7 requests (over HTTP/2 with a GOAWAY): the
        // traversal needed at least 6 of them.
        let connections = Set(entries.map(\.connection))
        #expect(connections.count >= 40 / HTTP2Nginx.requestsPerConnection + 1, "\(entries)")
        #expect(entries.allSatisfy { $0.requestOnConnection <= HTTP2Nginx.requestsPerConnection }, "\(entries)")
    }

    @Test func postsCaughtByAGoawayReachTheServerOnce() async throws {
        let nginx = try await TLSLab.http2()
        let marker = "goaway-post-\(UUID().uuidString)"
        let manager = manager(try await requester())
        let count = 24
        let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for index in 0..<count {
                group.addTask {
                    let url = nginx.url(port: nginx.goawayPort, "/post?\(marker)&n=\(index)")
                    do {
                        let response = try await manager.send(.post, to: url, body: .json(["n": .int(index)]))
                        return (index, .success(response.status))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var outcomes: [Int: Result<Int, any Error>] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        let entries = try await nginx.entries(containing: marker, count: count)
        for index in 0..<count {
            let sent = entries.filter { $0.target.hasSuffix("&n=\(index)") }
            // A stream above the GOAWAY's last stream id was never processed, so libcurl
            // sends it again on a new connection; one nginx took is never sent again.
            #expect(sent.count == 1, "POST \(index): \(sent)")
            #expect(sent.allSatisfy { $0.method == "POST" && $0.status == 200 }, "\(sent)")
            if case .failure(let error) = outcomes[index] { Issue.record("POST \(index) failed: \(error)") }
        }
        #expect(Set(entries.map(\.connection)).count >= count / HTTP2Nginx.requestsPerConnection, "\(entries)")
    }

    // MARK: Concurrent streams

    @Test func aServerAllowingFewerStreamsThanTheLimitServesTheWholeTree() async throws {
        let nginx = try await TLSLab.http2()
        let entries = try await traverseTree(nginx, port: nginx.narrowPort, name: "narrow", limit: 16)
        #expect(entries.count == 40 && Set(entries.map(\.target)).count == 40, "\(entries)")
        #expect(entries.allSatisfy { $0.status == 200 && $0.proto == "HTTP/2.0" }, "\(entries)")
    }

    // MARK: Connections

    @Test func aTraversalOverHTTP2UsesOneConnection() async throws {
        let nginx = try await TLSLab.http2()
        let entries = try await traverseTree(nginx, port: nginx.defaultPort, name: "one", limit: 64)
        #expect(entries.count == 40, "\(entries)")
        #expect(Set(entries.map(\.connection)).count == 1, "\(entries)")
        #expect(entries.allSatisfy { $0.proto == "HTTP/2.0" }, "\(entries)")
    }

    // MARK: Stream resets

    @Test func aResetStreamIsATransportErrorAndLeavesTheConnectionServing() async throws {
        let nginx = try await TLSLab.http2()
        let marker = "reset-\(UUID().uuidString)"
        let manager = manager(try await requester())
        let reset = nginx.url(port: nginx.defaultPort, "/reset?\(marker)")
        _ = try await manager.resource(from: nginx.tree(port: nginx.defaultPort, marker: marker))
        do {
            _ = try await manager.resource(from: reset)
            Issue.record("a reset stream gave a resource")
        } catch let error as HalleyError {
            #expect(error.code == .transport, "\(error)")
            #expect(error.url == reset, "\(error)")
            let transport = try #require(error.transportError, "\(error)")
            #expect(transport.code == .connectionReset, "\(transport)")
        }
        _ = try await manager.resource(from: nginx.tree(port: nginx.defaultPort, marker: marker + "-after"))
        let entries = try await nginx.entries(containing: marker, count: 3)
        #expect(entries.map(\.status) == [200, 444, 200], "\(entries)")
        // The reset ended its stream only: the next request went on the same connection.
        #expect(Set(entries.map(\.connection)).count == 1, "\(entries)")
    }

    @Test func aResetStreamIsRetriedByPolicyForAGetAndNeverForAPost() async throws {
        let nginx = try await TLSLab.http2()
        let marker = "reset-retry-\(UUID().uuidString)"
        let manager = manager(
            try await requester(), retries: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), jitter: 0))
        let get = nginx.url(port: nginx.defaultPort, "/reset?\(marker)-get")
        await #expect(throws: HalleyError.self) { try await manager.resource(from: get) }
        let post = nginx.url(port: nginx.defaultPort, "/reset?\(marker)-post")
        await #expect(throws: HalleyError.self) { try await manager.send(.post, to: post, body: .json(["a": 1])) }

        let gets = try await nginx.entries(containing: "\(marker)-get", count: 3)
        #expect(gets.count == 3 && gets.allSatisfy { $0.method == "GET" && $0.status == 444 }, "\(gets)")
        let posts = try await nginx.entries(containing: "\(marker)-post", count: 1)
        #expect(posts.count == 1 && posts[0].method == "POST", "\(posts)")
    }
}
