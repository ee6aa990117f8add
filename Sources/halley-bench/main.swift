// halley-bench: measures the Halley engine on in-memory APIs and prints a table of results.
//
//     swift run -c release halley-bench [--quick] [--scenario NAME]... [--json FILE]
//
// Exit status: 0 when every scenario ran and every correctness check held (a missed
// performance target is reported, not fatal), 1 otherwise, 64 for a bad command line.

import Foundation

// The transport scenario's server runs as this same binary in a process of its own.
if CommandLine.arguments.dropFirst().first == "--serve-transport" { LoopbackServer.serve() }
// The nginx lab alone, for timing whole processes (`halley get`, `curl`) from outside.
if CommandLine.arguments.dropFirst().first == "--serve-nginx" { NginxLabServer.serve() }

let arguments: BenchArguments
let scenarios: [any Scenario]
do {
    arguments = try BenchArguments.parse(Array(CommandLine.arguments.dropFirst()))
    scenarios = try ScenarioRegistry.select(arguments.scenarios)
} catch {
    printError("halley-bench: \(error)\n\n\(BenchArguments.usage)")
    exit(64)
}

if arguments.help {
    print(BenchArguments.usage)
    exit(0)
}
if arguments.list {
    for scenario in ScenarioRegistry.all { print("\(scenario.name)\t\(scenario.title)") }
    exit(0)
}

// The main thread runs the main run loop until the runner ends, so main-actor work (the live
// list's figure) runs on it, rather than top-level `await`: that parks the main thread in
// libdispatch's `dispatch_main` (`sigsuspend`), which crashes valgrind 3.19 ("Valgrind
// received a signal 11"), and callgrind must be able to run this.
let status = ExitStatus(0)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    status.set(await BenchRunner.run(arguments, scenarios: scenarios))
    finished.signal()
}
while finished.wait(timeout: .now()) == .timedOut {
    _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.1))
}
exit(status.get())
