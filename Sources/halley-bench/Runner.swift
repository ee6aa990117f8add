import Foundation
import Halley

/// Runs the selected scenarios, prints the table, writes the JSON, and decides the exit
/// status.
enum BenchRunner {
    /// - Returns: 0 when every scenario ran and every correctness check held; 1 otherwise.
    static func run(_ arguments: BenchArguments, scenarios: [any Scenario]) async -> Int32 {
        let settings = BenchSettings(quick: arguments.quick, requesters: arguments.requesters)
        let machine = Machine.current()
        let started = Date()
        let loadBefore = Machine.loadAverage()
        if machine.buildConfiguration == "debug" {
            printError("halley-bench: warning: debug build; use -c release for meaningful numbers")
        }

        var results: [ScenarioResult] = []
        for scenario in scenarios {
            printError("running \(scenario.name)...")
            let clock = ContinuousClock()
            let start = clock.now
            do {
                results.append(try await scenario.run(settings))
            } catch {
                printError("halley-bench: \(scenario.name) failed: \(error)")
                results.append(ScenarioResult(name: scenario.name, title: scenario.title, error: "\(error)"))
            }
            printError("  done in \(format(clock.now - start))")
        }

        let run = RunContext(
            machine: machine, settings: settings, started: started, loadBefore: loadBefore,
            loadAfter: Machine.loadAverage())
        print(TableReport(results: results, run: run).render())

        if let path = arguments.jsonPath {
            do {
                try JSONReport(results: results, run: run).write(to: path)
                printError("wrote \(path)")
            } catch {
                printError("halley-bench: cannot write \(path): \(error)")
                return 1
            }
        }

        let failures = results.filter(\.failed)
        if !failures.isEmpty {
            printError("halley-bench: FAILED: " + failures.map(\.name).joined(separator: ", "))
            return 1
        }
        return 0
    }
}

/// Writes a line to standard error (progress and failures; the report goes to stdout).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The exit status handed from the benchmark task to the main thread.
typealias ExitStatus = LockedValue<Int32>
