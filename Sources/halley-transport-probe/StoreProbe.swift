// The durable store's half of the probe: a process of its own that writes states and can be
// killed at any instant (SIGKILL), or exits, so a test can reopen the file as a relaunched app.
//
//     halley-transport-probe store-writer FILE BASE-URL COUNT
//         gets BASE-URL/N?pad=1000 for N in 0..<COUNT through a durable store at FILE;
//         after every tenth, waits for the writes (flush) and prints "ack N": every state up
//         to N is on disk.
//     halley-transport-probe store-scenario FILE TOKEN URL...
//         gets each URL with `Authorization: Bearer TOKEN`, flushes, prints "done", exits.

import Foundation
import Halley

/// Runs a `store-` mode; returns the exit status.
func runStoreProbe(_ arguments: [String]) async -> Int32 {
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
    guard arguments.count >= 3 else {
        FileHandle.standardError.write(
            Data("usage: halley-transport-probe store-writer|store-scenario FILE ...\n".utf8))
        return 64
    }
    let store = ResourceStore(file: URL(fileURLWithPath: arguments[1])) { event in
        FileHandle.standardError.write(Data("disk event: \(event)\n".utf8))
    }
    if let problem = store.persistenceError {
        FileHandle.standardError.write(Data("\(problem)\n".utf8))
        return 2
    }
    var configuration = ResourceManager.Configuration()
    configuration.store = store
    let manager = ResourceManager(configuration: configuration)
    do {
        switch arguments[0] {
        case "store-writer":
            guard arguments.count == 4, let count = Int(arguments[3]) else { return 64 }
            for index in 0..<count {
                guard let url = URL(string: "\(arguments[2])/\(index)?pad=1000") else { return 64 }
                _ = try await manager.resource(at: url).get()
                if index % 10 == 9 {
                    await store.flush()
                    say("ack \(index)")
                }
            }
        case "store-scenario":
            var options = CallOptions()
            options.headers = ["Authorization": "Bearer \(arguments[2])"]
            for text in arguments.dropFirst(3) {
                guard let url = URL(string: text) else { return 64 }
                _ = try await manager.resource(at: url, options: options).get()
            }
            await store.flush()
            say("done")
        default:
            return 64
        }
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        return 1
    }
    return 0
}
