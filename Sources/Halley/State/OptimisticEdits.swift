import Foundation
import HalleyHAL
import HalleyTransport

/// The state a write expects its resource to have once the server accepts it: shown at once
/// to every observer of the resource and of the collections that list it, marked
/// ``ResourceState/isPending``, until the server answers.
///
/// ```swift
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// // The body is merged into the shown state (RFC 7396) and sent as application/merge-patch+json.
/// _ = try await order.patch(.json(["status": "paid"]), expecting: .mergePatch)
/// // Or any change of the current JSON:
/// _ = try await order.put(.json(["status": "paid", "total": 30]), expecting: .changing { current in
///     var next = current
///     next["status"] = "paid"
///     return next
/// })
/// ```
///
/// The pending state is an overlay above the stored states: it is never stored (so a durable
/// store never sees it), carries no validators (its ``ResourceState/etag`` is `nil`, and
/// conditional requests use the stored state's), and is not read by traversals, which see
/// what the server sent.
public struct ExpectedState: Sendable {
    enum Kind: Sendable {
        case change(@Sendable (JSONObject) -> JSONObject)
        case mergePatch
    }

    let kind: Kind

    /// The state `change` makes of the current one (the whole document, `_links` included).
    ///
    /// ```swift
    /// let expected = ExpectedState.changing { current in
    ///     var next = current
    ///     next["status"] = "paid"
    ///     return next
    /// }
    /// ```
    public static func changing(_ change: @escaping @Sendable (_ current: JSONObject) -> JSONObject) -> ExpectedState {
        ExpectedState(kind: .change(change))
    }

    /// The current state with the write's body merged in as a JSON merge patch (RFC 7396: a
    /// member set to `null` is removed, objects merge, anything else replaces); the body must be
    /// a JSON object. A `PATCH` sends it as `application/merge-patch+json`; a `PUT` sends the
    /// body as given and shows it merged over the current state.
    ///
    /// ```swift
    /// _ = try await order.patch(.json(["status": "paid", "note": nil]), expecting: .mergePatch)
    /// ```
    public static let mergePatch = ExpectedState(kind: .mergePatch)

    /// The change to apply to the current state, and the body to send.
    func resolved(_ body: RequestBody, method: RequestMethod, url: URL) throws(HalleyError) -> (
        change: @Sendable (JSONObject) -> JSONObject, body: RequestBody
    ) {
        switch kind {
        case .change(let change):
            return (change, body)
        case .mergePatch:
            let patch: JSONValue?
            switch body {
            case .json(let value): patch = value
            case .data(let data, let contentType) where contentType.lowercased().contains("json"):
                patch = try? JSONValue(parsing: data)
            default: patch = nil
            }
            guard case .object(let object)? = patch else {
                throw HalleyError(
                    code: .invalidArgument, url: url,
                    message:
                        "\(method.rawValue) expecting a merge patch needs a JSON object as its body; nothing was sent")
            }
            let sent =
                method == .patch
                ? RequestBody.data(JSONValue.object(object).serialized(), contentType: "application/merge-patch+json")
                : body
            return ({ current in JSONMergePatch.applying(object, to: current) }, sent)
        }
    }
}

/// An optimistic edit the server refused (or that was cancelled), on the one event that rolled
/// it back (``ResourceState/rejectedEdit``): what an app shows beside the restored state.
///
/// ```swift
/// for await event in order.events {
///     if case .updated(let state) = event, let rejected = state.rejectedEdit {
///         print("\(rejected.method) failed:", rejected.error)
///     }
/// }
/// ```
public struct RejectedEdit: Sendable, Hashable {
    /// The write's method.
    public let method: RequestMethod
    /// Why it failed: the write's error (a ``HalleyError`` with the server's answer, or
    /// `CancellationError`).
    public let error: any Error
    /// Which edit, so that two rejections compare by identity.
    let id: UInt64

    /// Rejections are equal when they are the same edit's.
    public static func == (lhs: RejectedEdit, rhs: RejectedEdit) -> Bool { lhs.id == rhs.id }

    /// Hashes the edit's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// RFC 7396, section 2.
enum JSONMergePatch {
    static func applying(_ patch: JSONObject, to target: JSONObject) -> JSONObject {
        var result = target
        for member in patch.members {
            if case .null = member.value {
                result[member.key] = nil
            } else if case .object(let inner) = member.value {
                result[member.key] = .object(applying(inner, to: result[member.key]?.objectValue ?? JSONObject()))
            } else {
                result[member.key] = member.value
            }
        }
        return result
    }
}

/// The edit whose write runs in this task: the store settles it when the write's answer is
/// applied, in the same step (so the server's state replaces the pending one with no flicker).
enum EditContext {
    @TaskLocal static var id: UInt64?
}

extension ResourceHandle {
    /// Sends `PATCH` showing `expected` at once (see ``ExpectedState``): the server's answer
    /// replaces it (or, when the answer is not a representation, the expected state stays shown,
    /// stale and no longer pending, until the next state arrives); a failure restores exactly
    /// the state before, in one ``ResourceEvent/updated(_:)`` carrying ``ResourceState/rejectedEdit``.
    ///
    /// ```swift
    /// @MainActor func markPaid(_ order: ResourceModel<Order>) async {
    ///     // The model shows "paid" (pending) now, and the old status with the error on failure.
    ///     _ = try? await order.handle.patch(.json(["status": "paid"]), expecting: .mergePatch)
    /// }
    /// struct Order: Decodable { let status: String }
    /// ```
    ///
    /// Two edits of one resource apply in the order they were made; when the first fails, the
    /// second stays applied on the real state.
    ///
    /// - Throws: ``HalleyError/Code/invalidArgument`` when `expected` is a merge patch of a body
    ///   that is no JSON object, or makes no HAL document of the current state (nothing sent);
    ///   and as ``patch(_:options:)``.
    public func patch(_ body: RequestBody, options: WriteOptions = WriteOptions(), expecting expected: ExpectedState)
        async throws -> ActionResponse
    {
        try await optimisticWrite(.patch, body: body, options: options, expected: expected)
    }

    /// Sends `PUT` showing `expected` at once (see ``patch(_:options:expecting:)``).
    ///
    /// ```swift
    /// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    /// _ = try await order.put(.json(["status": "paid"]), expecting: .mergePatch)
    /// ```
    public func put(_ body: RequestBody, options: WriteOptions = WriteOptions(), expecting expected: ExpectedState)
        async throws -> ActionResponse
    {
        try await optimisticWrite(.put, body: body, options: options, expected: expected)
    }

    private func optimisticWrite(
        _ method: RequestMethod, body: RequestBody, options: WriteOptions, expected: ExpectedState
    ) async throws -> ActionResponse {
        let (change, sent) = try expected.resolved(body, method: method, url: url)
        let scope = try await stateScope()
        let id = try store.beginEdit(change, method: method, url: url, scope: scope)
        do {
            let response = try await EditContext.$id.withValue(id) {
                try await write(method, body: sent, options: options)
            }
            store.endEdit(id)
            return response
        } catch {
            store.rollBack(id, method: method, error: error)
            throw error
        }
    }
}
