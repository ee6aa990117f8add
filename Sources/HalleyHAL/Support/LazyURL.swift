import Foundation

/// An absolute URL as the engine carries it from a link to a request and back into the
/// document it fetched: its text, with Foundation's `URL` made only when something asks for
/// one.
///
/// `URL(string:)` validates the text and records where each component lies, and freeing the
/// result costs again, for a value the engine only hashes, compares and hands to a requester
/// that sends its text. The text comes one of two ways: a `URL`'s `absoluteString`, or text that
/// ``URLResolution`` joined and checked to be one Foundation parses to that very text
/// (``init(verbatim:)``).
///
/// Only the text is kept, not the `URL` a caller gave: requests and responses carry this
/// through every frame of the pipeline, and a second reference made each copy dearer. A
/// `URL` asked for is the absolute one parsed from the text, equal to an absolute URL it was
/// made from.
///
/// perf: no `URL` parsed per followed link; BENCHMARKS.md, "Why the hot paths look as they do".
package struct LazyURL: Sendable, Hashable {
    /// The URL's `absoluteString`.
    package let text: String

    package init(_ url: URL) {
        text = url.absoluteString
    }

    /// Text that `URL(string:)` parses, with that very text as its `absoluteString`:
    /// ``URLResolution/joined(_:_:)`` makes such text and says why it qualifies.
    init(verbatim text: String) {
        self.text = text
    }

    /// The URL, parsed from ``text`` on each call: the engine reads it only to describe a
    /// failure or an event, and a requester that reads it once pays what building the request
    /// used to.
    package var url: URL {
        if let url = URL(string: text) { return url }
        // Verbatim text always parses (`URLResolutionTests` checks the joining rule against
        // Foundation), and so does a URL's own `absoluteString`. Should one not, the lenient
        // reading percent-encodes what it must rather than stop the program; only empty text
        // has no reading at all, and then a file URL, which no HTTP requester fetches.
        return URL(dataRepresentation: Data(text.utf8), relativeTo: nil) ?? URL(fileURLWithPath: "/")
    }
}
