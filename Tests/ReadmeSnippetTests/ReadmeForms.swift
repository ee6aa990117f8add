// swift-format-ignore-file
// README.md's HAL-FORMS, requester and TLS blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds it to the README). Compiled, not run: the forms suites in
// HalleyTests run the same calls against their fixtures.
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Halley

struct OrderUpdate: Encodable {
    let quantity: Int
}

@MainActor func readmeForms(manager: ResourceManager, orderURL: URL, rootURL: URL) async throws -> ActionResponse {
    // snippet README.md "HAL-FORMS"
    var options = CallOptions()
    options.acceptsForms = true          // Accept: application/prs.hal-forms+json, application/hal+json, …
    let order = try await manager.document(at: orderURL, options: options)
    let edit = order.forms.default!      // HALForm: method, target, contentType, properties
    let maxQuantity = edit.property(named: "quantity")?.max
    let updated = try await manager.submit(edit, of: order, values: ["quantity": 3, "note": "gift"])
    try await manager.submit(edit, of: order, value: OrderUpdate(quantity: 3))   // any Encodable
    try await manager.entry(rootURL).follow("orders").form("default").submit(values: ["item": "book"])
    // end snippet
    _ = maxQuantity
    return updated
}

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func readmeRequesters(mySession: URLSession) throws -> [ResourceManager] {
    // snippet README.md "Requesters"
    let manager = ResourceManager()                                              // the platform's default
    let curl = ResourceManager(requester: try CurlRequester())                   // throws CurlUnavailableError
    let session = ResourceManager(requester: URLSessionRequester())              // URLSession everywhere
    let mine = ResourceManager(requester: URLSessionRequester(session: mySession)) // your URLSession's config
    // end snippet
    return [manager, curl, session, mine]
}

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func readmeTLSAndProxies() throws -> ResourceManager {
    // snippet README.md "TLS and proxies"
    var tls = TLSConfiguration(trustRoots: .systemAnd([.file("/etc/myapp/ca.pem")]))     // a private CA too
    tls.clientIdentity = .init(certificate: .file("client.pem"), key: .file("client.key")) // mutual TLS
    tls.pinnedKeys = [try .init("sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")]     // the server's key
    tls.minimumVersion = .tls13
    let proxy = ProxyConfiguration(url: URL(string: "http://proxy.internal:3128")!, noProxy: ["localhost", ".internal"])
    let manager = ResourceManager(requester: try CurlRequester(tls: tls, proxy: proxy))
    // end snippet
    return manager
}
