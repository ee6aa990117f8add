/// The human-readable report: one table row per metric (a Markdown table, so it pastes
/// into BENCHMARKS.md), then each scenario's parameters and notes.
struct TableReport {
    let results: [ScenarioResult]
    let run: RunContext

    func render() -> String {
        let machine = run.machine
        let settings = run.settings
        var lines: [String] = []
        let mode = settings.quick ? "quick" : "full"
        lines.append(
            "halley-bench (\(mode) run: \(settings.repetitions) repetitions per measurement, "
                + "first \(settings.warmups) discarded; median and min … max of the rest)")
        lines.append(
            "\(machine.kernel); \(machine.processors) CPUs; \(machine.cpuModel ?? "unknown CPU"); "
                + "\(machine.compiler), \(machine.buildConfiguration) build")
        lines.append(
            "load average before: \(RunContext.describe(run.loadBefore)); after: \(RunContext.describe(run.loadAfter))")
        if machine.buildConfiguration == "debug" {
            lines.append("WARNING: debug build; timings are meaningless. Use swift run -c release halley-bench.")
        }
        lines.append("")

        var rows: [[String]] = [["Scenario", "Metric", "Median", "Spread (min … max)", "Target", "Verdict"]]
        for result in results {
            if let error = result.error {
                rows.append([result.name, "error: \(error)", "—", "—", "—", Verdict.fail.rawValue])
            }
            for metric in result.metrics {
                rows.append([
                    result.name, metric.label, ValueFormatter.format(metric.value, unit: metric.unit),
                    spread(metric), target(metric), metric.verdict.rawValue,
                ])
            }
        }
        lines.append(contentsOf: table(rows))
        lines.append("")

        for result in results {
            lines.append("\(result.name): \(result.title)")
            if !result.parameters.isEmpty {
                lines.append("  " + result.parameters.map { "\($0.0) = \($0.1)" }.joined(separator: "; "))
            }
            for note in result.notes { lines.append("  note: \(note)") }
        }
        return lines.joined(separator: "\n")
    }

    private func spread(_ metric: Metric) -> String {
        guard let samples = metric.samples, samples.count > 1 else { return "—" }
        return ValueFormatter.format(samples.min, unit: metric.unit) + " … "
            + ValueFormatter.format(samples.max, unit: metric.unit)
    }

    private func target(_ metric: Metric) -> String {
        guard let target = metric.target else { return "—" }
        let value = ValueFormatter.format(target.value, unit: metric.unit)
        switch target.comparison {
        case .atMost: return "≤ " + value
        case .equal: return "= " + value
        }
    }

    /// Pipe-separated, padded columns with a Markdown header rule.
    private func table(_ rows: [[String]]) -> [String] {
        guard let header = rows.first else { return [] }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                cell + String(repeating: " ", count: max(0, widths[column] - cell.count))
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        var lines = [line(header)]
        lines.append("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        for row in rows.dropFirst() { lines.append(line(row)) }
        return lines
    }
}
