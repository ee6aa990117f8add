import Foundation
import Halley

/// The machine-readable report written by `--json FILE`, built with Halley's own
/// `JSONValue` so the tool needs nothing else.
///
/// Times are in seconds, memory in bytes, rates per second; `value` is the median when
/// `samples` are present.
struct JSONReport {
    let results: [ScenarioResult]
    let run: RunContext

    func document() -> JSONValue {
        let machine = run.machine
        let settings = run.settings
        var machineObject: JSONObject = [
            "kernel": .string(machine.kernel),
            "host": .string(machine.host),
            "processors": .int(machine.processors),
            "compiler": .string(machine.compiler),
            "build": .string(machine.buildConfiguration),
        ]
        machineObject["cpuModel"] = machine.cpuModel.map(JSONValue.string) ?? .null
        return [
            "tool": "halley-bench",
            "formatVersion": 1,
            "date": .string(ISO8601DateFormatter().string(from: run.started)),
            "loadAverageBefore": load(run.loadBefore),
            "loadAverageAfter": load(run.loadAfter),
            "mode": .string(settings.quick ? "quick" : "full"),
            "repetitions": .int(settings.repetitions),
            "warmupsDiscarded": .int(settings.warmups),
            "machine": .object(machineObject),
            "scenarios": .array(results.map(scenario)),
            "failed": .bool(results.contains { $0.failed }),
        ]
    }

    func write(to path: String) throws {
        try document().serialized(options: [.prettyPrinted]).write(to: URL(fileURLWithPath: path))
    }

    private func scenario(_ result: ScenarioResult) -> JSONValue {
        var object: JSONObject = [
            "name": .string(result.name),
            "title": .string(result.title),
            "parameters": .object(JSONObject(result.parameters.map { ($0.0, JSONValue.string($0.1)) })),
            "metrics": .array(result.metrics.map(metric)),
            "notes": .array(result.notes.map(JSONValue.string)),
        ]
        if let error = result.error { object["error"] = .string(error) }
        return .object(object)
    }

    private func metric(_ metric: Metric) -> JSONValue {
        var object: JSONObject = [
            "id": .string(metric.id),
            "label": .string(metric.label.trimmingCharacters(in: .whitespaces)),
            "unit": .string(metric.unit.rawValue),
            "value": number(metric.value),
            "verdict": .string(metric.verdict.rawValue),
        ]
        if let samples = metric.samples {
            object["min"] = number(samples.min)
            object["p25"] = number(samples.p25)
            object["median"] = number(samples.median)
            object["p75"] = number(samples.p75)
            object["max"] = number(samples.max)
            object["samples"] = .array(samples.sorted.map(number))
        }
        if let target = metric.target {
            object["target"] = ["comparison": .string(target.comparison.rawValue), "value": number(target.value)]
        }
        return .object(object)
    }

    private func load(_ values: [Double]?) -> JSONValue {
        values.map { .array($0.map(number)) } ?? .null
    }

    private func number(_ value: Double) -> JSONValue {
        value.isFinite ? .double(value) : .null
    }
}
