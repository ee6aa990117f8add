import Foundation
import Halley
import HalleyTestSupport
import Testing

/// What an app shows for an error (issue 38): `errorDescription` is one short sentence for
/// the app's user, naming what failed and the host, never a URL's query, JSON or a raw body;
/// `failureReason` and `recoverySuggestion` say why and what to do; `description` keeps the
/// developer's sentence.
@Suite struct UserFacingErrorTests {
    /// The call's error for a response of `status` with this body at `url`.
    private func failure(
        _ url: String, status: Int, contentType: String, body: String
    ) async throws -> HalleyError {
        let requester = InMemoryRequester()
        await requester.register(
            url, .init(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8)))
        let manager = ResourceManager(requester: requester)
        return try #require(await halleyError { try await manager.resource(from: URL(string: url)!) })
    }

    /// No URL, query, JSON or markup in what a user is shown.
    private func expectShowable(
        _ text: String?, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let text else {
            Issue.record("no text \(context)", sourceLocation: sourceLocation)
            return
        }
        for leak in ["://", "?", "{", "}", "<", "secret"] {
            #expect(!text.contains(leak), "\(leak) in \"\(text)\" \(context)", sourceLocation: sourceLocation)
        }
        #expect(text.hasSuffix("."), "\"\(text)\" is a sentence \(context)", sourceLocation: sourceLocation)
        #expect(text.count <= 200, "\"\(text)\" is short \(context)", sourceLocation: sourceLocation)
    }

    @Test func fastAPIsValidationErrorShowsItsFirstMessage() async throws {
        let body = """
            {"detail":[{"type":"int_parsing","loc":["query","limit"],\
            "msg":"Input should be a valid integer, unable to parse string as an integer","input":"ten"},\
            {"type":"missing","loc":["query","q"],"msg":"Field required","input":null}]}
            """
        let url = "http://books.example.com:8000/books?limit=ten&api_key=secret"
        let error = try await failure(url, status: 422, contentType: "application/json", body: body)
        #expect(
            error.localizedDescription
                == "The request to books.example.com:8000 failed: Input should be a valid integer, unable to parse "
                + "string as an integer.")
        #expect(error.errorDescription == error.localizedDescription)
        #expect(error.failureReason == "The server books.example.com:8000 answered HTTP 422 (Unprocessable Entity).")
        #expect(error.recoverySuggestion == "Check the values you entered and try again.")
        expectShowable(error.errorDescription)
        expectShowable(error.failureReason)
        #expect(!(error.errorDescription ?? "").contains("int_parsing"))
        // The developer's sentence stays as it was: status, body excerpt, URL.
        #expect(error.description.hasPrefix(#"HTTP 422 Unprocessable Entity: {"detail":[{"type":"int_parsing""#))
        #expect(error.description.hasSuffix("(URL \(url))"))
        let http = try #require(error.httpError)
        #expect(http.errorDescription == error.errorDescription)
        #expect(http.localizedDescription != http.description)
    }

    @Test func aProblemShowsItsTitle() async throws {
        let body = #"{"type":"https://api.example.com/problems/out-of-stock","title":"Out of stock","status":409}"#
        let error = try await failure(
            "https://api.example.com/orders/7?expand=items&secret=1", status: 409,
            contentType: "application/problem+json", body: body)
        #expect(error.localizedDescription == "The request to api.example.com failed: Out of stock.")
        #expect(error.failureReason == "The server api.example.com answered HTTP 409 (Conflict).")
        #expect(error.recoverySuggestion == "Reload and try again.")
        expectShowable(error.errorDescription)
        #expect(
            error.description
                == "HTTP 409 Conflict: Out of stock (URL https://api.example.com/orders/7?expand=items&secret=1)")
    }

    @Test func jsonBodiesShowTheirDetailOrMessageAndNeverTheJSON() async throws {
        let url = "https://api.example.com/orders/9?secret=1"
        for (body, shown) in [
            (
                #"{"detail":"No Order matches the given query."}"#,
                "The request to api.example.com failed: No Order matches the given query."
            ),
            (#"{"detail":"Not found."}"#, "The request to api.example.com failed (HTTP 404 Not Found)."),
            (
                #"{"timestamp":"2024-05-01","status":404,"error":"Not Found","message":"No order 9","path":"/orders/9"}"#,
                "The request to api.example.com failed: No order 9."
            ),
            (
                #"{"error":{"code":7,"message":"Order 9 is archived"}}"#,
                "The request to api.example.com failed: Order 9 is archived."
            ),
            (
                #"{"errors":[{"status":"404","title":"Gone","detail":"Order 9 was deleted"}]}"#,
                "The request to api.example.com failed: Order 9 was deleted."
            ),
            (#"{"title":"Not Found"}"#, "The request to api.example.com failed (HTTP 404 Not Found)."),
            (#"{"code":7,"items":[1,2]}"#, "The request to api.example.com failed (HTTP 404 Not Found)."),
            ("[1,2,3]", "The request to api.example.com failed (HTTP 404 Not Found)."),
        ] {
            let error = try await failure(url, status: 404, contentType: "application/json", body: body)
            #expect(error.localizedDescription == shown, "\(body)")
            #expect(error.recoverySuggestion == "It may have been moved or deleted; reload and try again.")
            expectShowable(error.errorDescription, body)
        }
        // An HTML error page and a text body are not shown either.
        let page = try await failure(
            url, status: 502, contentType: "text/html", body: "<html><head><title>502 Bad Gateway</title></head></html>"
        )
        #expect(page.localizedDescription == "The request to api.example.com failed (HTTP 502 Bad Gateway).")
        #expect(page.recoverySuggestion == "Wait a moment and try again.")
        let text = try await failure(
            url, status: 500, contentType: "text/plain", body: "Traceback (most recent call last)")
        #expect(text.localizedDescription == "The request to api.example.com failed (HTTP 500 Internal Server Error).")
    }

    @Test func anHTMLPageWhereAHALDocumentWasExpectedNamesItsContentType() async throws {
        let page = """
            <!DOCTYPE html>
            <html><head><title>Wi-Fi sign in</title></head><body><form action="/login"></form></body></html>
            """
        let url = "https://api.example.com/orders?page=2&secret=1"
        let error = try await failure(url, status: 200, contentType: "text/html; charset=utf-8", body: page)
        #expect(error.code == .invalidDocument)
        #expect(error.localizedDescription == "The reply from api.example.com is text/html, not a HAL document.")
        #expect(error.failureReason == "The server sent a web page where the app expected data.")
        #expect(error.recoverySuggestion == "Check the address, or sign in to the network if it asks you to.")
        expectShowable(error.errorDescription)
        expectShowable(error.failureReason)
        // The developer's sentence names the content type too.
        #expect(
            error.description
                == "invalid HAL document: invalid JSON: unexpected '<' where a value was expected at $ (byte 0) "
                + "of a text/html reply (URL \(url))")
        #expect(error.documentError?.contentType == "text/html; charset=utf-8")
        #expect(error.documentError?.localizedDescription == error.localizedDescription)
    }

    @Test func aHALReplyThatIsNotJSONSaysSoWithoutTheBody() async throws {
        let error = try await failure(
            "https://api.example.com/orders/1?secret=1", status: 200, contentType: "application/hal+json",
            body: #"{"_links": {"self": {"href": "/orders/1"}}, "total": 30,"#)
        #expect(error.localizedDescription == "The reply from api.example.com could not be read.")
        #expect(error.failureReason == "It is not valid JSON.")
        expectShowable(error.errorDescription)
        #expect(error.description.hasPrefix("invalid HAL document: invalid JSON: "))
        #expect(!error.description.contains("reply"), "a HAL content type is not named")
    }

    @Test func aTransportFailureNamesTheHost() async throws {
        let requester = InMemoryRequester()
        let url = "https://nosuch.invalid/orders?secret=1"
        await requester.register(url) { _ in throw URLError(.cannotFindHost) }
        var options = CallOptions()
        options.retryPolicy = RetryPolicy.none
        let error = try #require(
            await halleyError {
                try await ResourceManager(requester: requester).resource(from: URL(string: url)!, options: options)
            })
        #expect(error.localizedDescription == "The server nosuch.invalid could not be found.")
        #expect(error.failureReason == "Its name does not resolve to an address.")
        #expect(error.recoverySuggestion == "Check the address and your network connection.")
        #expect(
            error.transportError?.description
                == "the host name nosuch.invalid could not be resolved; check the URL's host name and the network's DNS"
        )
    }

    @Test func cancellationIsNotAnErrorToShow() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/slow", json: ["x": 1], latency: .seconds(30))
        let task = Task { try await ResourceManager(requester: requester).resource(from: Graph.url("/slow")) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// Every public error type, with a URL whose query must not show.
    static var everyError: [any Error] {
        let url = URL(string: "https://api.example.com:8443/orders/9?secret=1")!
        let codes: [HalleyError.Code] = [
            .http, .transport, .invalidDocument, .invalidTemplate, .invalidURL, .unsupportedScheme,
            .ambiguousRelation, .malformedLink, .invalidInclude, .limitExceeded, .decoding, .timeout, .validation,
            .paginationCycle, .pageMismatch, .missingRelation, .missingForm, .formValidation,
            .unsupportedContentType, .missingValidator, HalleyError.Code(rawValue: "someFutureCode"),
        ]
        let transportCodes: [TransportError.Code] = [
            .hostNotFound, .connectionRefused, .hostUnreachable, .connectionReset, .timedOut, .untrustedCertificate,
            .expiredCertificate, .hostNameMismatch, .pinnedKeyMismatch, .clientCertificateRequired,
            .tlsProtocolVersion, .tlsHandshakeFailed, .proxyFailed, .tooManyRedirects, .redirectRefused,
            .badResponse, .other,
        ]
        let body = Data(#"{"detail": "see https://docs.example.com/?secret=1"}"#.utf8)
        var errors: [any Error] = codes.map { HalleyError(code: $0, url: url, message: "m \(url)") }
        errors += transportCodes.map { TransportError(code: $0, url: url, detail: "curl said \(url)") }
        errors += [
            HTTPError(
                response: ResourceResponse(
                    status: 500, headers: ["Content-Type": "application/json"], url: url, body: body)),
            HALDocumentError(code: .missingHref, path: "$._links.a", message: "link has no href", url: url),
            HALDocumentError(code: .invalidJSON, path: "$", message: "invalid JSON: {", url: url),
            IncludePathError(code: .unclosedBracket, path: "[a", offset: 2, message: "'[' is never closed"),
            ResponseBodyTooLargeError(url: url, limit: 10),
            ResponseHeadersTooLargeError(url: url, limit: .count(100)),
            ResponseHeadersTooLargeError(url: url, limit: .bytes(1000)),
            RedirectError(url: url, reason: .tooManyRedirects(limit: 10)),
            RedirectError(url: url, reason: .unsupportedScheme("file")),
            RedirectError(url: url, reason: .invalidLocation("::")),
            HALFormValidationError(
                form: "default",
                failures: [
                    .init(property: "quantity", rule: .max, message: "12 is more than the maximum 10", value: 12),
                    .init(property: "item", rule: .required, message: "a value is required"),
                ]),
            CurlUnavailableError(reason: "libcurl.so.4: cannot open shared object file"),
            TLSError(kind: .untrustedCertificate, url: url, detail: "SSL certificate problem"),
            TLSError(kind: .expiredCertificate, url: url, detail: ""),
            ProxyError(proxy: "proxy.local:3128", url: url, reason: .cannotConnect),
            ProxyError(proxy: "proxy.local:3128", url: url, reason: .invalidProxyURL("http://user:secret@x")),
            ProxyError(proxy: "proxy.local:3128", url: url, reason: .credentialsInClear(headers: ["Authorization"])),
            UnsupportedSettingsError(
                requester: "URLSessionRequester on Linux", settings: ["client certificates"],
                advice: "use CurlRequester"),
            TLSConfigurationError(.noTrustRoots),
            UnimplementedRequesterError(requester: "Forgotten"),
            HalleyError(
                code: .http, url: url, message: "m",
                underlying: HTTPError(response: ResourceResponse(status: 401, url: url, body: Data()))),
        ]
        do { _ = try JSONValue(parsing: Data("{\"a\": <b>}".utf8)) } catch { errors.append(error) }
        do { _ = try URITemplate("{unclosed") } catch { errors.append(error) }
        return errors
    }

    @Test func everyPublicErrorHasAllThreePartsInWordsForPeople() throws {
        for error in Self.everyError {
            let context = "\(type(of: error)): \(error)"
            let localized = try #require(error as? any LocalizedError, "\(context)")
            expectShowable(localized.errorDescription, context)
            expectShowable(localized.failureReason, context)
            if let suggestion = localized.recoverySuggestion { expectShowable(suggestion, context) }
            #expect(error.localizedDescription == localized.errorDescription, "\(context)")
            #expect(!error.localizedDescription.contains("could not be completed"), "\(context)")
            let named = ["api.example.com:8443", "proxy.local:3128"]
            if "\(error)".contains("api.example.com") {
                #expect(
                    named.contains { (localized.errorDescription ?? "").contains($0) },
                    "the host in \"\(localized.errorDescription ?? "")\" (\(context))")
            }
        }
    }
}
