/// A set of repeated measurements (seconds, ratios, rates...) and their summary statistics.
///
/// Percentiles interpolate linearly between the closest ranks, so the median of an even
/// number of samples is the mean of the middle two.
struct Samples: Sendable {
    /// The measurements, ascending.
    let sorted: [Double]

    init(_ values: [Double]) {
        sorted = values.sorted()
    }

    var count: Int { sorted.count }
    var isEmpty: Bool { sorted.isEmpty }
    var min: Double { sorted.first ?? .nan }
    var max: Double { sorted.last ?? .nan }
    var median: Double { percentile(0.5) }
    /// First quartile.
    var p25: Double { percentile(0.25) }
    /// Third quartile.
    var p75: Double { percentile(0.75) }
    /// Interquartile range.
    var iqr: Double { p75 - p25 }
    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }

    /// The value below which a fraction `p` (0...1) of the samples fall.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        guard sorted.count > 1 else { return sorted[0] }
        let rank = Swift.min(Swift.max(p, 0), 1) * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    /// Every sample transformed, e.g. seconds divided by an ideal time.
    func map(_ transform: (Double) -> Double) -> Samples {
        Samples(sorted.map(transform))
    }

    /// Element-wise ratios of paired samples taken in the same repetitions.
    ///
    /// - Parameters:
    ///   - numerators: One value per repetition, in repetition order.
    ///   - denominators: One value per repetition, in the same order.
    static func ratios(_ numerators: [Double], _ denominators: [Double]) -> Samples {
        Samples(zip(numerators, denominators).map { $0 / $1 })
    }
}
