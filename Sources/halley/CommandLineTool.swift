import Foundation

/// Runs one invocation of the tool: parse, dispatch, and turn every error into one
/// `halley: ` line and an exit status. Nothing escapes as a crash.
enum CommandLineTool {
    /// Runs the tool with the arguments after the program name.
    static func run(_ arguments: [String], console: Console = .shared) async -> ExitCode {
        do {
            let invocation = try Invocation.parse(arguments)
            if invocation.requestArguments?.transport.insecure == true {
                console.error(
                    "warning: --insecure: any server certificate is accepted (its host name is still checked); "
                        + "anyone on the network path can read and change this traffic")
            }
            switch invocation {
            case .help(let command):
                console.out(HelpText.text(for: command) + "\n")
                return .success
            case .version:
                console.out("halley \(HelpText.version)\n")
                return .success
            case .get(let get):
                return try await GetCommand(arguments: get).run(console: console)
            case .items(let items):
                return try await ItemsCommand(arguments: items).run(console: console)
            case .links(let links):
                return try await LinksCommand(arguments: links).run(console: console)
            case .expand(let expand):
                return try ExpandCommand(arguments: expand).run(console: console)
            case .forms(let forms):
                return try await FormsCommand(arguments: forms).run(console: console)
            case .submit(let submit):
                return try await SubmitCommand(arguments: submit).run(console: console)
            case .send(let send):
                return try await SendCommand(arguments: send).run(console: console)
            }
        } catch {
            let (code, message) = ErrorReport.describe(error)
            console.error(message)
            return code
        }
    }
}
