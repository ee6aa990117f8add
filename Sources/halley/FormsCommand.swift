import Foundation
import Halley

/// `halley forms`: fetch one document as HAL-FORMS and print each template with a table of
/// its properties.
struct FormsCommand {
    /// The checked command line.
    let arguments: FormsArguments

    /// The property table's columns; documented in `halley forms --help`.
    static let header = ["NAME", "PROMPT", "TYPE", "REQUIRED", "READONLY", "VALUE", "CONSTRAINTS", "OPTIONS"]

    /// Fetches the document, prints the templates, lists malformed ones on stderr.
    ///
    /// - Returns: ``ExitCode/success``, also when some templates are malformed or there are
    ///   none (a note says so).
    func run(console: Console) async throws -> ExitCode {
        let reporter = TraversalReporter(arguments.request, console: console)
        let session = try Session(arguments.request, observer: reporter.observe, acceptsForms: true)
        let resource = try await session.manager.document(at: session.rootURL, options: session.callOptions())
        let blocks = resource.forms.forms.map { form in
            Self.heading(of: form, in: resource, variables: session.options.variables) + "\n"
                + TextTable.render(header: Self.header, rows: form.properties.map(Self.row))
        }
        if !blocks.isEmpty { console.out(blocks.joined(separator: "\n")) }
        for problem in resource.problems where Self.isTemplateProblem(problem) {
            // Problems recorded while parsing do not carry the URL; the help promises it.
            let place = (problem.url ?? session.rootURL).absoluteString
            console.error("warning: \(Self.outcome(of: problem, in: resource.forms)): \(problem.location) in \(place)")
        }
        if resource.forms.isEmpty, resource.forms.problems.isEmpty {
            console.error("note: \(session.rootURL.absoluteString) has no HAL-FORMS templates (_templates)")
        }
        return .success
    }

    /// What became of the template a problem belongs to: left out, or kept with the member
    /// read as the message says.
    static func outcome(of problem: HALDocumentError, in forms: HALForms) -> String {
        if let key = problem.templateKey, forms[key] != nil { return "template \(key) kept" }
        return "malformed template skipped"
    }

    /// Whether a document problem belongs to `_templates` rather than to links.
    static func isTemplateProblem(_ problem: HALDocumentError) -> Bool {
        problem.templateKey != nil || problem.code == .templatesNotObject
    }

    /// `KEY: METHOD TARGET (how the values travel) "TITLE"`.
    static func heading(of form: HALForm, in resource: HALResource, variables: [String: TemplateValue]) -> String {
        let target: String
        do {
            target = try form.targetURL(in: resource, variables: variables).absoluteString
        } catch {
            target = "(no target: \(error.message))"
        }
        let carrier = form.sendsValuesInQuery ? "query" : form.contentType
        var line = "\(form.key): \(form.method) \(target) (\(carrier))"
        if let title = form.title { line += " \"\(title)\"" }
        return Console.singleLine(line)
    }

    /// One property: `-` marks an absent value.
    static func row(_ property: HALFormProperty) -> [String] {
        [
            property.name, property.prompt ?? "-", property.type?.rawValue ?? "-", property.required ? "yes" : "no",
            property.readOnly ? "yes" : "no", property.value.map(Self.text) ?? "-",
            constraints(of: property), options(of: property),
        ]
    }

    /// `regex=… minLength=… maxLength=… min=… max=… step=…`, then the display hints
    /// `placeholder="…" cols=… rows=…` and `templated`.
    static func constraints(of property: HALFormProperty) -> String {
        var parts: [String] = []
        if let regex = property.regex { parts.append("regex=\(regex)") }
        if let minLength = property.minLength { parts.append("minLength=\(minLength)") }
        if let maxLength = property.maxLength { parts.append("maxLength=\(maxLength)") }
        if let min = property.min { parts.append("min=\(number(min))") }
        if let max = property.max { parts.append("max=\(number(max))") }
        if let step = property.step { parts.append("step=\(number(step))") }
        if let placeholder = property.placeholder { parts.append("placeholder=\"\(placeholder)\"") }
        if let cols = property.cols { parts.append("cols=\(cols)") }
        if let rows = property.rows { parts.append("rows=\(rows)") }
        if property.templated { parts.append("templated") }
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }

    /// `a, b, c` (inline values, `value=prompt` when the prompt differs) or `link HREF`, then
    /// `selected …` and `items MIN..MAX`.
    static func options(of property: HALFormProperty) -> String {
        guard let options = property.options else { return "-" }
        var parts: [String] = []
        if let inline = options.inline {
            parts.append(
                inline.map { option in
                    let value = text(option.value)
                    return option.prompt == value ? value : "\(value)=\(option.prompt)"
                }.joined(separator: ", "))
        } else if let link = options.link {
            parts.append("link \(link.href)")
        }
        if let selected = options.selectedValues, !selected.isEmpty {
            parts.append("selected " + selected.map(text).joined(separator: ", "))
        }
        if options.minItems != nil || options.maxItems != nil {
            parts.append("items \(options.minItems ?? 0)..\(options.maxItems.map(String.init) ?? "")")
        }
        return parts.isEmpty ? "-" : parts.joined(separator: "; ")
    }

    /// Strings as they are, anything else as compact JSON.
    static func text(_ value: JSONValue) -> String {
        value.stringValue ?? value.description
    }

    /// `40` rather than `40.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && value.magnitude < 1e15 ? String(Int(value)) : value.description
    }
}
