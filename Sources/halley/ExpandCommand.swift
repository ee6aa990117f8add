import Halley

/// `halley expand`: expand an RFC 6570 URI template, offline.
struct ExpandCommand {
    /// The checked command line.
    let arguments: ExpandArguments

    /// Prints the expansion.
    ///
    /// - Throws: ``URITemplateError`` (exit 3; its message names the offset).
    func run(console: Console) throws -> ExitCode {
        let expanded = try URITemplate(arguments.template).expand(arguments.variables)
        console.out(expanded + "\n")
        return .success
    }
}
