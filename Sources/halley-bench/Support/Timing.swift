/// Wall-clock timing on `ContinuousClock`, with warm-up repetitions discarded.
enum Timing {
    /// How long `body` takes.
    static func time(_ body: () async throws -> Void) async rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return clock.now - start
    }

    /// Runs `body` `repetitions` times and returns the durations, in seconds, of all but the
    /// first `warmups`.
    static func repeated(
        _ repetitions: Int, warmups: Int, _ body: () async throws -> Void
    ) async rethrows -> Samples {
        var seconds: [Double] = []
        seconds.reserveCapacity(repetitions)
        for repetition in 0..<repetitions {
            let elapsed = try await time(body)
            if repetition >= warmups { seconds.append(elapsed.seconds) }
        }
        return Samples(seconds)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// A duration from (possibly fractional) seconds.
    static func fromSeconds(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
