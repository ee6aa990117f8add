/// A `Duration` in the units the transports and the retry policy count in.
extension Duration {
    /// The whole milliseconds, or `nil` when they do not fit in 64 bits (past 292 million
    /// years: a limit that means "none"), where a plain product would trap.
    package var wholeMilliseconds: Int64? {
        let (seconds, attoseconds) = components
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, overflowedAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowed || overflowedAgain ? nil : total
    }

    /// The length in seconds, as a `Double`.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
