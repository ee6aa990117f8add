import Foundation

/// Numbers as the report shows them: a few significant digits and a unit.
enum ValueFormatter {
    static func format(_ value: Double, unit: MetricUnit) -> String {
        guard value.isFinite else { return "n/a" }
        switch unit {
        case .ratio:
            return fixed(value, decimals: value < 10 ? 2 : 1) + "×"
        case .seconds:
            if value >= 1 { return significant(value) + " s" }
            if value >= 1e-3 { return significant(value * 1e3) + " ms" }
            if value >= 1e-6 { return significant(value * 1e6) + " µs" }
            return significant(value * 1e9) + " ns"
        case .bytes:
            if value >= 1_048_576 { return significant(value / 1_048_576) + " MiB" }
            if value >= 1_024 { return significant(value / 1_024) + " KiB" }
            return fixed(value, decimals: 0) + " B"
        case .count:
            return fixed(value, decimals: 0)
        case .perSecond:
            if value >= 1e6 { return significant(value / 1e6) + " M/s" }
            if value >= 1e3 { return significant(value / 1e3) + " k/s" }
            return significant(value) + " /s"
        }
    }

    /// Three significant digits for values from 1 to 999, e.g. `1.23`, `12.3`, `123`.
    private static func significant(_ value: Double) -> String {
        if value >= 100 { return fixed(value, decimals: 0) }
        if value >= 10 { return fixed(value, decimals: 1) }
        return fixed(value, decimals: 2)
    }

    private static func fixed(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}

/// A duration in the report's style: `20 ms`, `250 µs`, `1.5 s`.
func format(_ duration: Duration) -> String {
    ValueFormatter.format(duration.seconds, unit: .seconds)
}
