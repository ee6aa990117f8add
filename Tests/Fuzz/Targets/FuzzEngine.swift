import Foundation
import Halley

// libFuzzer target: the traversal engine fed random documents through the in-memory
// requester. The input is split on 0x00 bytes into documents served at /, /a, /b, /c, /d;
// the plan follows several shapes over them.

private let paths = ["/", "/a", "/b", "/c", "/d"]
private let includes: [Include] = ["[a].b", "[a].[c]", "b.d", "c", "[item].a", "d@x", "[\"e.f\"]"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Copied out of libFuzzer's buffer before the task starts: it is reused after this returns.
    let documents = bytes.split(separator: 0, maxSplits: paths.count - 1, omittingEmptySubsequences: false)
        .map { Data($0) }
    let finished = DispatchSemaphore(value: 0)
    Task {
        let requester = InMemoryRequester()
        for (path, document) in zip(paths, documents) {
            await requester.register("https://api.example.com" + path, InMemoryRequester.Route(body: document))
        }
        var options = CallOptions()
        options.maxRequests = 50
        options.maxConcurrency = 4
        let manager = ResourceManager(requester: requester)
        if let url = URL(string: "https://api.example.com/") {
            _ = try? await manager.resource(from: url, includes: includes, options: options)
            _ = try? await manager.traverse(url, includes: includes, options: options)
            _ = try? await manager.resourceCollection(from: url, includes: ["a"], options: options)
        }
        finished.signal()
    }
    finished.wait()
    return 0
}
