import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durable store across processes, over loopback HTTP with a real server (the `/etag/`
/// routes of `hal_test_server.py`: documents with ETags, `no-cache`, and `304`s): a writer killed
/// mid-stream, and the app scenario of quit, offline relaunch, revalidation and a second user.
@Suite struct DurableStoreHTTPTests {
    /// A temporary directory for one test's database, removed when the test ends.
    final class Directory: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("halley-store-\(UUID().uuidString)")
        var file: URL { url.appendingPathComponent("states.sqlite") }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// A probe process in a `store-` mode, its output read line by line.
    final class Child: Sendable {
        private let process = Process()
        private let lines = LockedValue<[String]>([])
        private let ended = LockedValue(false)

        init(_ arguments: [String]) throws {
            guard let binary = ProbeRunner.binary else {
                throw TestServerError("cannot find the built halley-transport-probe")
            }
            process.executableURL = binary
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.standardError
            let (lines, ended) = (lines, ended)
            // A thread of its own: the read blocks.
            Thread.detachNewThread {
                var pending = Data()
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 10) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        lines.withLock { $0.append(line) }
                    }
                }
                ended.set(true)
            }
            try process.run()
        }

        var output: [String] { lines.get() }

        /// Waits until a line satisfies `condition`, or the output ends.
        func wait(for condition: (String) -> Bool) async {
            while !output.contains(where: condition), !ended.get() { try? await Task.sleep(for: .milliseconds(2)) }
        }

        /// Kills the process at once, the way the system ends an app.
        func kill() {
            _ = sendSignal(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func waitUntilExit() async -> Int32 {
            await withCheckedContinuation { done in
                DispatchQueue.global().async {
                    self.process.waitUntilExit()
                    done.resume(returning: self.process.terminationStatus)
                }
            }
        }
    }

    private func readers(_ store: ResourceStore) throws -> ResourceManager {
        try StateManagers.make(.curl, store: store)
    }

    @Test func aWriterKilledMidStreamReopensWithNothingAcknowledgedLostAndNothingHalfWritten() async throws {
        let server = try await TestServer.shared()
        var generator = SystemRandomNumberGenerator()
        for run in 0..<6 {
            let directory = Directory()
            let base = server.url("/etag/killed-\(run)-\(UUID().uuidString.prefix(6))")
            let child = try Child(["store-writer", directory.file.path, base.absoluteString, "400"])
            await child.wait { $0.hasPrefix("ack") }
            // Somewhere in the stream of writes after the first acknowledgement.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...40_000, using: &generator)))
            child.kill()
            let acknowledged = child.output.compactMap { Int($0.split(separator: " ").last ?? "") }.max() ?? -1
            #expect(acknowledged >= 9, "run \(run): \(child.output)")

            let events = LockedValue<[ResourceStore.DiskEvent]>([])
            let store = ResourceStore(file: directory.file) { event in events.withLock { $0.append(event) } }
            #expect(store.persistenceError == nil)
            let manager = try readers(store)
            var found = 0
            for index in 0..<400 {
                let url = URL(string: "\(base.absoluteString)/\(index)?pad=1000")!
                guard let state = await manager.resource(at: url).current else {
                    #expect(index > acknowledged, "run \(run): state \(index) was acknowledged and is lost")
                    continue
                }
                found += 1
                // Exactly the document the server sent: its name and its 1,000 bytes of padding.
                #expect(state.resource.state["name"]?.stringValue == base.path + "/\(index)")
                #expect(state.resource.state["padding"]?.stringValue == String(repeating: "x", count: 1_000))
                #expect(state.etag != nil)
            }
            #expect(found > acknowledged)
            await store.flush()
            #expect(events.get().isEmpty, "run \(run): \(events.get())")
        }
    }

    @Test func anAppQuitsRelaunchesOfflineRevalidatesAndASecondUserSeesNothing() async throws {
        let server = try await TestServer.shared()
        let directory = Directory()
        let root = "/etag/scenario-\(UUID().uuidString.prefix(6))/orders"
        let list = server.url(root + "?items=2")
        let details = [server.url(root + "/1?pad=0"), server.url(root + "/2?pad=0")]

        // The app loads the list and two details, then quits (its process exits).
        let app = try Child(
            ["store-scenario", directory.file.path, "alice", list.absoluteString] + details.map(\.absoluteString))
        #expect(await app.waitUntilExit() == 0)
        #expect(app.output == ["done"])
        let before = try await server.requests(containing: root).count
        #expect(before == 3)

        // Relaunched offline: all three at once, from the file, with no request.
        let records = LockedValue<[RequestRecord]>([])
        var configuration = ResourceManager.Configuration()
        let store = ResourceStore(file: directory.file)
        configuration.store = store
        configuration.observer = { event in
            if case .requestFinished(let record) = event { records.withLock { $0.append(record) } }
        }
        let manager = ResourceManager(requester: try Transport.curl.make(), configuration: configuration)
        let alice = StateManagers.headers(["Authorization": "Bearer alice"])
        for url in [list] + details {
            let state = try await manager.resource(at: url, options: alice).get(policy: .storedOnly)
            #expect(state.isStale, "no-cache: shown, to be revalidated")
            #expect(state.etag != nil)
        }
        #expect(try await server.requests(containing: root).count == before, "offline: nothing was sent")

        // Online again: each revalidates with its ETag and gets a 304, no body.
        for url in [list] + details {
            let state = try await manager.resource(at: url, options: alice).get()
            #expect(!state.isStale)
        }
        let revalidations = try await server.requests(containing: root).dropFirst(before)
        #expect(revalidations.count == 3)
        #expect(revalidations.allSatisfy { $0.headers.keys.contains { $0.lowercased() == "if-none-match" } })
        #expect(records.get().map(\.status) == [304, 304, 304])
        #expect(records.get().allSatisfy { ($0.bytes ?? 0) == 0 }, "no body was transferred")

        // A second user on the same device sees none of the first user's states.
        let bob = StateManagers.headers(["Authorization": "Bearer bob"])
        for url in [list] + details {
            #expect(await manager.resource(at: url, options: bob).current == nil)
            await #expect(throws: HalleyError.self) {
                try await manager.resource(at: url, options: bob).get(policy: .storedOnly)
            }
        }
    }
}

/// `kill(2)`, named apart from the test's own `kill()`.
private func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
