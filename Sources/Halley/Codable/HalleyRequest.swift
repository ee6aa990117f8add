import Foundation
import HalleyHAL

/// A typed request: where to start, which relationships to include, and what to decode.
///
/// ```swift
/// let contact = try await manager.request(
///     HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
///                            includeType: .contactsAndWebsiteOfContacts,
///                            queryItems: [], decoder: JSONDecoder()))
/// ```
///
/// The URL is a `URL`, or a string that may be an RFC 6570 template, expanded with the
/// request's variables over the call's and the manager's (as ``ResourceManager`` takes both
/// in `resource(from:)`).
public struct HalleyRequest<Item: Decodable> {
    /// The root URL, or a URI template for it. For a request made with a `URL`, that URL's
    /// `absoluteString`; setting it makes the request start at the new text, read as a template.
    public var url: String {
        get { urlText }
        set {
            urlText = newValue
            exactURL = nil
        }
    }
    private var urlText: String
    /// The `URL` the request was made with: started at as it is, never read as a template
    /// (as `resource(from: URL)` does).
    private(set) var exactURL: URL?
    /// Typed include fields (what an include type's `prepareIncludes()` returns).
    public var includeFields: [IncludeField]
    /// String include paths, compiled into the same plan as ``includeFields``.
    public var includes: [Include]
    /// Variable overrides for this request: a value wins over the manager's and the
    /// options'; `nil` removes a variable (it becomes undefined and is dropped).
    public var variables: [String: TemplateValue?]
    /// Values for the templated links of the traversal, as in the original Halley (its
    /// `OverridingTemplateHandler`): `country_key=US` fills `{?country_key}` in every templated
    /// link (and a templated root). They are not appended to the root URL. They win over the
    /// manager's and the options' variables and lose to ``variables``; of two items with one
    /// name, the first counts.
    public var queryItems: [FieldQueryItem]
    /// The decoder, with the caller's date and key strategies; `nil` uses the manager's
    /// ``ResourceManager/Configuration/decoder``.
    public var decoder: JSONDecoder?
    /// Traversal options (embedded or links first, headers, limits, observer).
    public var options: CallOptions
    /// Where a page's Spring-style metadata lives (`page` by default).
    public var pageMetadataKey: String = "page"

    /// A request with string include paths.
    public init(
        url: String, includes: [Include] = [], variables: [String: TemplateValue?] = [:],
        queryItems: [FieldQueryItem] = [], decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) {
        self.urlText = url
        self.includeFields = []
        self.includes = includes
        self.variables = variables
        self.queryItems = queryItems
        self.decoder = decoder
        self.options = options
    }

    /// A request with typed include fields.
    public init(
        url: String, includeFields: [IncludeField], variables: [String: TemplateValue?] = [:],
        queryItems: [FieldQueryItem] = [], decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) {
        self.init(url: url, variables: variables, queryItems: queryItems, decoder: decoder, options: options)
        self.includeFields = includeFields
    }

    /// A request with string include paths, starting at `url` as it is.
    ///
    /// ```swift
    /// HalleyRequest<Contact>(url: URL(string: "https://api.example.com/contacts/1")!, includes: ["website"])
    /// ```
    public init(
        url: URL, includes: [Include] = [], variables: [String: TemplateValue?] = [:],
        queryItems: [FieldQueryItem] = [], decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) {
        self.init(
            url: url.absoluteString, includes: includes, variables: variables, queryItems: queryItems,
            decoder: decoder, options: options)
        exactURL = url
    }

    /// A request with typed include fields, starting at `url` as it is.
    public init(
        url: URL, includeFields: [IncludeField], variables: [String: TemplateValue?] = [:],
        queryItems: [FieldQueryItem] = [], decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) {
        self.init(
            url: url.absoluteString, includeFields: includeFields, variables: variables, queryItems: queryItems,
            decoder: decoder, options: options)
        exactURL = url
    }

    /// Makes the request start at `url` as it is (a page's own URL, say), not at a template.
    mutating func start(at url: URL) {
        urlText = url.absoluteString
        exactURL = url
    }

    /// The request's options with its query items and then its own variables laid over them
    /// (`nil` values undefined).
    var callOptions: CallOptions {
        var options = self.options
        var templateValues: [String: TemplateValue] = [:]
        for item in queryItems where templateValues[item.name] == nil {
            templateValues[item.name] = item.value.map { .string($0) } ?? .undefined
        }
        options.variables = options.variables.overlaid(with: templateValues)
            .overlaid(with: variables.mapValues { $0 ?? .undefined })
        return options
    }

    /// The include plan of this request.
    ///
    /// - Throws: ``IncludePathError`` for malformed or conflicting includes.
    public func includePlan() throws(IncludePathError) -> IncludePlan {
        var plan = try IncludePlan(fields: includeFields)
        for include in includes {
            try plan.add(IncludePath(include.path), variables: include.variables, queryItems: include.queryItems)
        }
        return plan
    }
}

extension HalleyRequest where Item: IncludableType, Item.IncludeType: IncludeTypeInterface {
    /// A request using one of the model's named include lists, as in the original Halley.
    public init(
        url: String, includeType: Item.IncludeType, queryItems: [FieldQueryItem] = [],
        decoder: JSONDecoder? = nil, variables: [String: TemplateValue?] = [:],
        options: CallOptions = CallOptions()
    ) {
        self.init(
            url: url, includeFields: includeType.prepareIncludes(), variables: variables, queryItems: queryItems,
            decoder: decoder, options: options)
    }

    /// A request using one of the model's named include lists, starting at `url` as it is.
    ///
    /// ```swift
    /// HalleyRequest<Contact>(url: URL(string: "https://api.example.com/contacts/1")!, includeType: .full)
    /// ```
    public init(
        url: URL, includeType: Item.IncludeType, queryItems: [FieldQueryItem] = [],
        decoder: JSONDecoder? = nil, variables: [String: TemplateValue?] = [:],
        options: CallOptions = CallOptions()
    ) {
        self.init(
            url: url, includeFields: includeType.prepareIncludes(), variables: variables, queryItems: queryItems,
            decoder: decoder, options: options)
    }
}

extension HalleyRequest: Sendable {}
