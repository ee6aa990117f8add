import Foundation
import Halley

/// Prints what an action got back: the body on stdout, JSON pretty-printed with sorted keys,
/// anything else as text; nothing for an empty body.
enum ResponsePrinter {
    static func printBody(of response: ActionResponse, console: Console) {
        guard !response.body.isEmpty else { return }
        if let json = try? JSONValue(parsing: response.body) {
            console.out(
                String(decoding: json.serialized(options: [.prettyPrinted, .sortedKeys]), as: UTF8.self) + "\n")
        } else {
            let text = String(decoding: response.body, as: UTF8.self)
            console.out(text.hasSuffix("\n") ? text : text + "\n")
        }
    }

    /// `URL answered STATUS[, Location URL]`, for the note on stderr.
    static func outcome(of response: ActionResponse) -> String {
        var text = "\(response.response.url.absoluteString) answered \(response.status)"
        if let location = response.location { text += ", Location \(location.absoluteString)" }
        return text
    }
}
