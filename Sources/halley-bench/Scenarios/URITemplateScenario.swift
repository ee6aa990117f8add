import Foundation
import Halley

/// RFC 6570 expansion speed: a level-4 template with six variables, expanded from a parsed
/// template and parsed anew each time, against building the same URL with `URLComponents`.
struct URITemplateScenario: Scenario {
    let name = "uri-template"
    let title = "Level-4 template, 6 variables: expansions per second vs URLComponents"

    static let text = "https://api.example.com{/version}/users{/id}/orders{?page,size,sort*}{&q}"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let iterations = settings.pick(full: 50_000, quick: 5_000)
        let variables: [String: TemplateValue] = [
            "version": "v2", "id": "42", "page": 3, "size": 50, "sort": ["date", "-total"], "q": "red shoes",
        ]
        let parts = Parts(version: "v2", id: "42", page: "3", size: "50", sort: ["date", "-total"], q: "red shoes")
        let template = try URITemplate(Self.text)
        let ours = try template.expand(variables)
        guard let theirs = parts.urlComponentsString() else { throw BenchError("URLComponents built no URL") }

        var expandSeconds: [Double] = []
        var parseExpandSeconds: [Double] = []
        var componentsSeconds: [Double] = []
        var checksum = 0
        for repetition in 0..<settings.repetitions {
            let expand = try await Timing.time {
                for _ in 0..<iterations { checksum &+= try template.expand(variables).utf8.count }
            }
            let parseExpand = try await Timing.time {
                for _ in 0..<iterations { checksum &+= try URITemplate(Self.text).expand(variables).utf8.count }
            }
            let components = await Timing.time {
                for _ in 0..<iterations { checksum &+= parts.urlComponentsString()?.utf8.count ?? 0 }
            }
            guard repetition >= settings.warmups else { continue }
            expandSeconds.append(expand.seconds / Double(iterations))
            parseExpandSeconds.append(parseExpand.seconds / Double(iterations))
            componentsSeconds.append(components.seconds / Double(iterations))
        }
        // Keeps the loops' results alive; the lengths are never all zero.
        guard checksum != 0 else { throw BenchError("empty expansions") }

        let perSecond = { (seconds: [Double]) in Samples(seconds.map { 1 / $0 }) }
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("template", Self.text), ("iterations per repetition", "\(iterations)"),
                ("expansion", ours), ("URLComponents", theirs),
            ],
            metrics: [
                .measured(
                    "ratio", "expand (parsed template) / URLComponents, time per URL", unit: .ratio,
                    Samples.ratios(expandSeconds, componentsSeconds)),
                .measured(
                    "parse_expand_ratio", "parse + expand / URLComponents, time per URL", unit: .ratio,
                    Samples.ratios(parseExpandSeconds, componentsSeconds)),
                .measured(
                    "expand_rate", "expansions per second (parsed template)", unit: .perSecond,
                    perSecond(expandSeconds)),
                .measured(
                    "parse_expand_rate", "parse + expand per second", unit: .perSecond, perSecond(parseExpandSeconds)),
                .measured(
                    "components_rate", "URLComponents builds per second", unit: .perSecond,
                    perSecond(componentsSeconds)),
            ],
            notes: ours == theirs ? [] : ["the two URLs differ: \(ours) vs \(theirs)"])
    }

    /// The template's values, as the hand-written `URLComponents` code takes them.
    private struct Parts {
        let version: String
        let id: String
        let page: String
        let size: String
        let sort: [String]
        let q: String

        func urlComponentsString() -> String? {
            var components = URLComponents()
            components.scheme = "https"
            components.host = "api.example.com"
            components.path = "/\(version)/users/\(id)/orders"
            var items = [URLQueryItem(name: "page", value: page), URLQueryItem(name: "size", value: size)]
            for key in sort { items.append(URLQueryItem(name: "sort", value: key)) }
            items.append(URLQueryItem(name: "q", value: q))
            components.queryItems = items
            return components.string
        }
    }
}
