import Foundation

/// An absolute URL as the engine carries it from a link to a request and back into the
/// document it fetched: its text, with Foundation's `URL` made only when something asks for
/// one.
///
/// `URL(string:)` validates the text and records where each component lies, about 3.7 k
/// instructions, and freeing the result takes another 1 k: about a sixth of what a traversal
/// spends per resource, for a value it only hashes, compares and hands to a requester that
/// sends its text. The text comes one of two ways: from a `URL`, which is kept (asking gives
/// back that very value), or as text that ``URLResolution`` joined and checked to be one
/// Foundation parses to the same text (``init(verbatim:)``).
///
/// Equal and hashed by ``text``, as the fetch table and the requesters' routes key by it.
struct LazyURL: Sendable, Hashable {
    /// The URL's `absoluteString`.
    let text: String
    /// The URL this was made from, when it was. (An enum of the two costs more: copying a
    /// multi-payload enum goes through an outlined switch, 0.6 k per resource in a traversal.)
    private let given: URL?

    init(_ url: URL) {
        text = url.absoluteString
        given = url
    }

    /// Text that `URL(string:)` parses, with that very text as its `absoluteString`:
    /// ``URLResolution/joined(_:_:)`` makes such text and says why it qualifies.
    init(verbatim text: String) {
        self.text = text
        given = nil
    }

    /// The URL, parsed from ``text`` on each call when it was not made from one: the engine
    /// reads it only to describe a failure, and a requester that reads it once pays what
    /// building the request used to.
    var url: URL {
        if let given { return given }
        // `init(verbatim:)`'s contract, which `VerbatimURLTextTests` checks against Foundation
        // over every shape the joining rule lets through.
        guard let url = URL(string: text) else { preconditionFailure("verbatim URL text does not parse: \(text)") }
        return url
    }

    static func == (lhs: LazyURL, rhs: LazyURL) -> Bool { lhs.text == rhs.text }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
