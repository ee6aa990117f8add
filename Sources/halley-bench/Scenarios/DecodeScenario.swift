import Foundation
import Halley

/// The cost of the typed layer: a collection of embedded contacts with embedded websites,
/// at zero latency, fetched and decoded through `manager.request`, against a bare
/// `JSONDecoder` decoding the final merged bytes into the same models.
struct DecodeScenario: Scenario {
    let name = "decode"
    let title = "Typed call over N embedded contacts with embedded websites vs JSONDecoder on the merged bytes"

    /// Paired repetitions of the typed call and of a bare `JSONDecoder` decoding the merged
    /// bytes into the same models: each ratio compares two runs taken back to back.
    private func pairedSeconds<Model: Decodable>(
        _ request: HalleyRequest<Model>, decoding merged: Data, _ manager: ResourceManager, _ settings: BenchSettings
    ) async throws -> (typed: [Double], decode: [Double]) {
        var typedSeconds: [Double] = []
        var decodeSeconds: [Double] = []
        for repetition in 0..<settings.repetitions {
            let typedTime = try await Timing.time { _ = try await manager.request(request) }
            let decodeTime = try await Timing.time { _ = try JSONDecoder().decode(Model.self, from: merged) }
            guard repetition >= settings.warmups else { continue }
            typedSeconds.append(typedTime.seconds)
            decodeSeconds.append(decodeTime.seconds)
        }
        return (typedSeconds, decodeSeconds)
    }

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let count = settings.pick(full: 2_000, quick: 300)
        let requester = InMemoryRequester(latency: .zero)
        let document = DecodeFixtures.collection(count: count)
        let body = document.serialized()
        await requester.register(BenchGraphs.base + DecodeFixtures.path, InMemoryRequester.Route(body: body))
        let manager = ResourceManager(requester: requester)
        let root = try BenchGraphs.url(DecodeFixtures.path)
        let includes: [Include] = ["[contacts].website"]
        let request = HalleyRequest<BenchContactList>(url: BenchGraphs.base + DecodeFixtures.path, includes: includes)

        // The final merged bytes, once, and a check that both paths agree.
        let merged = try await manager.resource(from: root, includes: includes).serialized()
        let plain = try JSONDecoder().decode(BenchContactList.self, from: merged)
        let typed = try await manager.request(request)
        if let difference = DecodeFixtures.firstDifference(typed, plain) {
            throw BenchError("the typed call and the plain decode disagree: \(difference)")
        }
        guard typed.contacts.count == count, typed.contacts.allSatisfy({ $0.website != nil }) else {
            throw BenchError(
                "the typed call decoded \(typed.contacts.count) of \(count) contacts, not all with websites")
        }

        let (typedSeconds, decodeSeconds) = try await pairedSeconds(request, decoding: merged, manager, settings)

        // The same comparison with models that leave `_links` out.
        let liteRequest = HalleyRequest<LiteContactList>(
            url: BenchGraphs.base + DecodeFixtures.path, includes: includes)
        let (liteTypedSeconds, liteDecodeSeconds) = try await pairedSeconds(
            liteRequest, decoding: merged, manager, settings)

        // Where the typed call's time goes, stage by stage.
        let untyped = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try await manager.resource(from: root, includes: includes)
        }
        let mergedValue = try JSONValue(parsing: merged)
        let serialize = await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = mergedValue.serialized()
        }
        let parse = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try JSONValue(parsing: body)
        }
        let hal = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try HALResource(parsing: body, url: root)
        }
        let foundationParse = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try JSONSerialization.jsonObject(with: body)
        }

        let typedSamples = Samples(typedSeconds)
        let decodeSamples = Samples(decodeSeconds)
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("contacts", "\(count)"), ("body", ValueFormatter.format(Double(body.count), unit: .bytes)),
                ("merged bytes", ValueFormatter.format(Double(merged.count), unit: .bytes)),
                ("include", "[contacts].website"), ("latency", "0"),
            ],
            metrics: [
                .measured(
                    "ratio", "typed call / JSONDecoder on merged bytes", unit: .ratio,
                    Samples.ratios(typedSeconds, decodeSeconds), target: .atMost(1.0)),
                .measured("typed", "typed call (manager.request)", unit: .seconds, typedSamples),
                .measured("decode", "JSONDecoder.decode of merged bytes", unit: .seconds, decodeSamples),
                .measured(
                    "ratio_without_links", "same ratio, models without _links", unit: .ratio,
                    Samples.ratios(liteTypedSeconds, liteDecodeSeconds)),
                .measured(
                    "decode_without_links", "JSONDecoder.decode, models without _links", unit: .seconds,
                    Samples(liteDecodeSeconds)),
                .measured(
                    "resource", "  stage: manager.resource (fetch+parse+traverse+merge)", unit: .seconds, untyped),
                .measured("hal_parse", "  stage: HALResource(parsing:) of the body", unit: .seconds, hal),
                .measured("json_parse", "  stage: JSONValue(parsing:) of the body", unit: .seconds, parse),
                .measured(
                    "serialize", "  context: merged JSONValue.serialized() (no longer part of a typed call)",
                    unit: .seconds, serialize),
                .measured(
                    "foundation_parse", "  context: JSONSerialization of the body", unit: .seconds, foundationParse),
            ],
            notes: [
                "typed ≈ resource + decoding the merged tree (no serialize, no re-parse);"
                    + " the stage rows are separate runs of each step."
            ])
    }
}
