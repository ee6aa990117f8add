import Foundation
import Halley
import HalleyTestSupport

/// A HAL API whose `GET`s answer at once from documents the test sets, and whose writes wait
/// until the test answers them, in the order they arrived: what a screen shows while a write
/// is in flight can be read before the server has answered.
actor HeldWritesAPI {
    typealias Answer = ScriptedAnswer

    let requester = InMemoryRequester()
    private var documents: [String: (json: JSONValue, headers: HeaderFields)] = [:]
    private var held: [(request: ResourceRequest, answer: CheckedContinuation<Answer, Never>)] = []
    private var arrivalWaiters: [(count: Int, waiter: CheckedContinuation<Void, Never>)] = []
    private var registered: Set<String> = []
    private(set) var writes: [ResourceRequest] = []
    private(set) var gets: [ResourceRequest] = []

    /// Serves `json` at `path` to `GET`.
    func serve(_ path: String, _ json: JSONValue, headers: HeaderFields = ["Cache-Control": "max-age=60"]) async {
        documents[path] = (json, headers)
        guard registered.insert(path).inserted else { return }
        await requester.register(Graph.base + path) { [weak self] request in
            guard let self else { throw CancellationError() }
            return await self.respond(path, request)
        }
    }

    /// Waits until `count` writes have arrived in all.
    func waitForWrites(_ count: Int) async {
        if writes.count >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    /// Answers the oldest write still held.
    func answerNext(_ answer: Answer) {
        guard !held.isEmpty else { return }
        held.removeFirst().answer.resume(returning: answer)
    }

    private func respond(_ path: String, _ request: ResourceRequest) async -> ResourceResponse {
        let answer: Answer
        if request.method == .get {
            gets.append(request)
            guard let document = documents[path] else {
                return ResourceResponse(status: 404, url: request.url, body: Data())
            }
            answer = Answer(status: 200, headers: document.headers, json: document.json)
        } else {
            writes.append(request)
            let arrived = writes.count
            let ready = arrivalWaiters.filter { $0.count <= arrived }
            arrivalWaiters.removeAll { $0.count <= arrived }
            for waiter in ready { waiter.waiter.resume() }
            answer = await withCheckedContinuation { held.append((request, $0)) }
        }
        return answer.response(to: request)
    }
}
