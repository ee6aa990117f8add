import Foundation
import Halley

/// The process exit statuses scripts rely on. Part of the tool's contract: never renumber.
enum ExitCode: Int32 {
    /// Everything worked (with `--allow-partial`, also when some relationships failed).
    case success = 0
    /// An HTTP status outside 2xx, a network failure, or a limit of the call exceeded.
    case failure = 1
    /// The command line is wrong: unknown command or option, missing or malformed value.
    case usage = 2
    /// The input is unusable: not JSON, not a HAL object, a malformed link, a bad URI
    /// template or URL, a bad include path, a missing or unusable form, values a form rejects.
    case invalidInput = 3
    /// Out of time: an attempt passed `--timeout`, or the command passed `--deadline`. Apart
    /// from other failures so a script can tell "slow" from "broken".
    case timeout = 4
}

/// An error the tool raises itself, already carrying its exit status.
struct ToolError: Error {
    /// The status to exit with.
    let exitCode: ExitCode
    /// One line for people, without the `halley: ` prefix.
    let message: String

    /// A command-line mistake (exit 2), with a hint on where to look.
    static func usage(_ message: String, command: String? = nil) -> ToolError {
        let help = command.map { "halley \($0) --help" } ?? "halley --help"
        return ToolError(exitCode: .usage, message: "\(message) (see '\(help)')")
    }
}

/// Turns any error into the exit status and the one-line message the tool prints.
enum ErrorReport {
    /// The exit status for a library error code; the table `--help` documents.
    ///
    /// Codes are an open set, so unknown future codes count as failures (1), which is what a
    /// script retrying on 1 should see for something unexpected.
    static func exitCode(for code: HalleyError.Code) -> ExitCode {
        switch code {
        case .http, .transport, .limitExceeded:
            return .failure
        case .timeout:
            return .timeout
        case .invalidDocument, .malformedLink, .invalidTemplate, .invalidURL, .unsupportedScheme, .invalidInclude,
            .ambiguousRelation, .decoding, .missingRelation, .missingForm, .formValidation, .unsupportedContentType:
            return .invalidInput
        default:
            return .failure
        }
    }

    /// The exit status and message for anything a command threw.
    static func describe(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as ToolError:
            return (error.exitCode, error.message)
        case let error as HalleyError:
            return (exitCode(for: error.code), message(for: error))
        case let error as URITemplateError:
            return (.invalidInput, "invalid URI template: \(error.message)")
        case let error as IncludePathError:
            return (.invalidInput, "invalid include path: \(error.description)")
        case is CancellationError:
            return (.failure, "cancelled")
        default:
            return (.failure, String(describing: error))
        }
    }

    /// `message (include path "p", URL u)`, leaving out what the message already names
    /// (HTTP errors name the URL, include path errors the path), so the line stays short.
    /// Where the library's advice names a setting, the tool names its option instead.
    static func message(for error: HalleyError) -> String {
        let message = advised(error)
        var context: [String] = []
        if let path = error.includePath, !error.message.contains("include path \"\(path)\"") {
            context.append("include path \"\(path)\"")
        }
        if let url = error.url, !error.message.contains(url.absoluteString) {
            context.append("URL \(url.absoluteString)")
        }
        return context.isEmpty ? message : "\(message) (\(context.joined(separator: ", ")))"
    }

    /// The error's message with the tool's advice: `--cacert` rather than
    /// `TLSConfiguration.trustRoots`, `--timeout` and `--deadline` for the time limits.
    static func advised(_ error: HalleyError) -> String {
        guard let transport = error.transportError else {
            // A call's deadline names no single request.
            return error.code == .timeout && error.message.hasPrefix("the whole call")
                ? error.message + "; allow more with --deadline" : error.message
        }
        if error.code == .timeout {
            guard let attempts = error.message.range(of: " (after ") else {
                return error.message + "; allow more with --timeout"
            }
            return error.message[..<attempts.lowerBound] + "; allow more with --timeout"
                + error.message[attempts.lowerBound...]
        }
        guard error.message.hasPrefix(transport.description) else { return error.message }
        let advice: String?
        switch transport.code {
        case .untrustedCertificate: advice = "give its CA with --cacert"
        case .clientCertificateRequired: advice = "give one with --cert and --key"
        case .pinnedKeyMismatch: advice = "check --pinned-pubkey"
        case .tlsProtocolVersion: advice = nil
        default: return error.message
        }
        let sentence = transport.summary + (advice.map { "; " + $0 } ?? "")
        return sentence + error.message.dropFirst(transport.description.count)
    }
}
