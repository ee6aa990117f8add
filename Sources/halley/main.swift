import Foundation

// The `halley` command-line tool. See `halley --help`; the pieces:
// Invocation/ArgumentScanner (parsing), *Command (commands), Session (manager setup),
// TraversalReporter/TraceFormat/TextTable/DisplayWidth/Console (output), ExitCode (statuses).
let status = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
