import Foundation
import Halley

/// `halley submit`: fetch a resource as HAL-FORMS, fill one template with `--field` values,
/// check them and send.
struct SubmitCommand {
    /// The checked command line.
    let arguments: SubmitArguments

    /// Fetches the resource, submits the template, prints the response body.
    ///
    /// - Returns: ``ExitCode/success`` for a 2xx answer.
    /// - Throws: ``ToolError`` (exit 3) after one `invalid:` line per failing property when
    ///   the values break the template; ``HalleyError`` otherwise.
    func run(console: Console) async throws -> ExitCode {
        let reporter = TraversalReporter(arguments.request, console: console)
        let session = try Session(arguments.request, observer: reporter.observe, acceptsForms: true)
        let resource = try await session.manager.document(at: session.rootURL, options: session.callOptions())
        let form = try resource.form(arguments.form)
        for problem in form.problems {
            // The template is used as the draft reads it; say which members were not as written.
            let place = (problem.url ?? session.rootURL).absoluteString
            console.error("warning: template \(form.key) kept: \(problem.location) in \(place)")
        }
        let values = Self.values(arguments.fields, for: form)
        let response: ActionResponse
        do {
            response = try await session.manager.submit(
                form, of: resource, values: values, options: session.callOptions())
        } catch let error as HalleyError where error.code == .formValidation {
            guard let validation = error.formValidationError else { throw error }
            for failure in validation.failures {
                console.error("invalid: \(failure.description)")
            }
            let count = validation.properties.count
            throw ToolError(
                exitCode: .invalidInput,
                message: "\(count) \(count == 1 ? "value does" : "values do") not satisfy template "
                    + "\"\(form.key)\" (\(validation.properties.joined(separator: ", "))); nothing was sent")
        }
        console.error("note: submitted template \"\(form.key)\": " + ResponsePrinter.outcome(of: response))
        ResponsePrinter.printBody(of: response, console: console)
        return .success
    }

    /// `--field` texts as JSON values for `form`: numbers for `number` and `range`
    /// properties, `true`/`false` for `checkbox`, a list when the name is repeated or the
    /// property's options allow more than one item; strings otherwise (and for names the
    /// template does not declare, which the check then reports).
    static func values(_ fields: [(name: String, value: String)], for form: HALForm) -> [String: JSONValue] {
        var texts: [String: [String]] = [:]
        var order: [String] = []
        for field in fields {
            if texts[field.name] == nil { order.append(field.name) }
            texts[field.name, default: []].append(field.value)
        }
        var values: [String: JSONValue] = [:]
        for name in order {
            let given = texts[name] ?? []
            let property = form.property(named: name)
            let items = given.map { typed($0, as: property?.inputType ?? .text) }
            // As the defaults do: a property with options takes a list unless maxItems is 1.
            let isList = given.count > 1 || property?.options.map { !$0.takesOneValue } == true
            values[name] = isList ? .array(items) : items.first
        }
        return values
    }

    /// `text` as a JSON number for numeric types and a Boolean for checkboxes, when it reads
    /// as one; otherwise the text (the check reports what is wrong with it).
    static func typed(_ text: String, as type: HALFormInputType) -> JSONValue {
        switch type {
        case .number, .range:
            if let int = Int(text) { return .int(int) }
            if text.allSatisfy({ "0123456789.-+eE".contains($0) }), let double = Double(text), double.isFinite {
                return .double(double)
            }
        case .checkbox:
            if text == "true" { return .bool(true) }
            if text == "false" { return .bool(false) }
        default:
            break
        }
        return .string(text)
    }
}
