import Foundation

// Every public error reads as its own sentence through `localizedDescription`, which is
// what `Text(error.localizedDescription)` and most loggers show; without `LocalizedError`
// Foundation would print "The operation could not be completed. (Halley.HalleyError error 1.)".

extension HalleyError: LocalizedError {
    /// The ``description``: what happened, with the include path and URL.
    public var errorDescription: String? { description }
}

extension HTTPError: LocalizedError {
    /// The ``description``: status, reason, URL and the problem's title and detail.
    public var errorDescription: String? { description }
}

extension HALDocumentError: LocalizedError {
    /// The ``description``: what is wrong, its JSON path and the document's URL.
    public var errorDescription: String? { description }
}

extension JSONParsingError: LocalizedError {
    /// The ``description``: what is wrong and where.
    public var errorDescription: String? { description }
}

extension URITemplateError: LocalizedError {
    /// The ``description``: what is wrong and at which offset of the template.
    public var errorDescription: String? { description }
}

extension IncludePathError: LocalizedError {
    /// The ``description``: what is wrong and at which offset of the path.
    public var errorDescription: String? { description }
}

extension ResponseBodyTooLargeError: LocalizedError {
    /// The ``description``: the URL and the limit.
    public var errorDescription: String? { description }
}

extension HALFormValidationError: LocalizedError {
    /// The ``description``: the template and every failing property with its rule.
    public var errorDescription: String? { description }
}

extension ResponseHeadersTooLargeError: LocalizedError {
    /// The ``description``: the URL and the header limit passed.
    public var errorDescription: String? { description }
}

extension RedirectError: LocalizedError {
    /// The ``description``: why the redirect was not followed.
    public var errorDescription: String? { description }
}

extension CurlUnavailableError: LocalizedError {
    /// The ``description``: why libcurl could not be loaded.
    public var errorDescription: String? { description }
}
