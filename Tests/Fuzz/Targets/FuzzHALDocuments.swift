import Foundation
import HalleyHAL

// libFuzzer target: JSON and HAL document parsing, writing, and re-reading.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHALDocuments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    guard let value = try? JSONValue(parsing: body) else { return 0 }
    // What we write, we read back identically.
    guard let reread = try? JSONValue(parsing: value.serialized()), reread == value else {
        fatalError("JSON does not round-trip")
    }
    _ = value.serialized(options: [.prettyPrinted, .sortedKeys])
    for policy in [HALParsingOptions.MalformedLinkPolicy.report, .fail] {
        guard
            let resource = try? HALResource(
                json: value, url: URL(string: "https://api.example.com/doc"),
                options: HALParsingOptions(malformedLinks: policy))
        else { continue }
        _ = resource.problems
        _ = resource.state
        for relation in resource.links.relations {
            for link in relation.links { _ = resource.url(for: link) }
            _ = resource.links.documentationURL(for: relation.rel)
            _ = resource.links.expandedURI(of: relation.rel)
        }
        _ = resource.links.json
    }
    return 0
}
