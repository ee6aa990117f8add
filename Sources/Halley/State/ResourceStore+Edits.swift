import Foundation
import HalleyHAL

extension ResourceStore {
    /// Starts showing edit `change` of `url` for `scope`: every observer of the resource and of
    /// the collections listing it hears the expected state now, marked pending.
    ///
    /// - Throws: ``HalleyError/Code/invalidArgument`` when the change makes no HAL document of
    ///   the state shown now (nothing is shown, nothing is sent).
    func beginEdit(
        _ change: @escaping @Sendable (JSONObject) -> JSONObject, method: RequestMethod, url: URL, scope: StateScope
    ) throws(HalleyError) -> UInt64 {
        let target = PendingEdits.Target(scope: scope.credentials, url: url.absoluteString)
        let begun: Result<UInt64, HalleyError> = changing { storage, changes in
            if let key = storage.key(of: target.url, scope: scope), let state = storage.current(key) {
                let shown = pendingEdits.withLock { storage.withEdits(state, key: key, edits: $0) }
                do {
                    _ = try HALResource(json: .object(change(shown.resource.json)), url: url)
                } catch {
                    return .failure(
                        HalleyError(
                            code: .invalidArgument, url: url,
                            message: "the state \(method.rawValue) expects of \(url.absoluteString) is no HAL "
                                + "document (\(error)); nothing was sent", underlying: error))
                }
            }
            let id = pendingEdits.withLock { $0.add(change, to: target) }
            storage.recordEdited(target.url, scope: target.scope, changes: &changes)
            return .success(id)
        }
        return try begun.get()
    }

    /// Ends edit `id` after its write succeeded, unless the write's answer already settled it.
    func endEdit(_ id: UInt64) {
        changing { storage, changes in
            guard pendingEdits.withLock({ $0.isPending(id) }), let target = pendingEdits.withLock({ $0.remove(id) })
            else { return }
            storage.recordEdited(target.url, scope: target.scope, changes: &changes)
        }
    }

    /// Rolls edit `id` back after its write failed: observers hear the state without it (the
    /// other edits of the resource still applied, in order), once, with `error`. An edit whose
    /// write's success was applied already stays settled: the success wins.
    func rollBack(_ id: UInt64, method: RequestMethod, error: any Error) {
        guard let target = pendingEdits.withLock({ $0.isPending(id) ? $0.target(of: id) : nil }) else { return }
        let rejection = (target, RejectedEdit(method: method, error: error, id: id))
        changing(rejecting: rejection) { storage, changes in
            guard pendingEdits.withLock({ $0.isPending(id) }) else { return }
            pendingEdits.withLock { _ = $0.remove(id) }
            storage.recordEdited(target.url, scope: target.scope, changes: &changes)
        }
    }

    /// Settles the edit whose write this task sends (``EditContext/id``) as the write's answer
    /// is applied, in the same step: removed when the answer brought the new state or deleted
    /// the resource, else shown (stale, not pending) until a newer state arrives.
    func settleEdit(
        after write: StateStorage.WriteRequest, invalidation: ResponseInvalidation, storage: inout StateStorage,
        changes: inout StateChanges
    ) {
        guard let id = EditContext.id, invalidation.succeeded else { return }
        let target = PendingEdits.Target(scope: write.scope.credentials, url: write.url.absoluteString)
        let settled = pendingEdits.withLock { edits -> Bool in
            guard edits.target(of: id) == target, edits.isPending(id) else { return false }
            let key = storage.key(of: target.url, scope: write.scope)
            let replaced = key.map { changes.isUpdated($0) && storage.states[$0]?.isInvalidated == false } ?? true
            if invalidation.method == .delete || replaced {
                edits.remove(id)
            } else {
                edits.settle(id, over: storage.newestSequence(of: target.url, scope: target.scope) ?? 0)
            }
            return true
        }
        if settled { storage.recordEdited(target.url, scope: target.scope, changes: &changes) }
    }

    /// `changes` as observers hear them: each new state with the edits shown over it (and a
    /// rejection on the states a rolled-back edit showed in), after the settled edits that a
    /// newer state replaced are dropped.
    func withEdits(
        _ changes: StateChanges, in storage: StateStorage, rejecting rejection: (PendingEdits.Target, RejectedEdit)?
    ) -> StateChanges {
        pendingEdits.withLock { edits in
            guard !edits.isEmpty || rejection != nil else { return changes }
            edits.prune { storage.newestSequence(of: $0.url, scope: $0.scope) }
            var shown = StateChanges()
            for change in changes.ordered {
                var event = change.event
                if case .updated(let state) = change.event {
                    var view = storage.withEdits(state, key: change.key, edits: edits)
                    if let (target, rejected) = rejection, change.key.scope == target.scope,
                        change.key.url == target.url || storage.states[change.key]?.items.contains(target.url) == true
                    {
                        view.rejectedEdit = rejected
                    }
                    event = .updated(view)
                }
                shown.record(event, for: change.key, varyNames: change.varyNames)
            }
            return shown
        }
    }

    /// A read of `key` with the edits shown over it.
    func withEdits(_ state: ResourceState?, key: StateKey, in storage: StateStorage) -> ResourceState? {
        guard let state else { return nil }
        return pendingEdits.withLock { $0.isEmpty ? state : storage.withEdits(state, key: key, edits: $0) }
    }
}
