/// Runs `body`, or throws `timeoutError()` once `limit` passes; either way the loser is
/// cancelled and awaited, so nothing keeps running after the call returns.
func withTimeLimit<Value: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> Value,
    timeoutError: () -> any Error
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else { throw timeoutError() }
        return value
    }
}
