import HalleyHAL

// libFuzzer target: URI template parsing and expansion with every kind of value.

private let variables: [String: TemplateValue] = [
    "var": "value", "hello": "Hello World!", "empty": "", "path": "/foo/bar", "x": "1024", "y": "768",
    "list": ["red", "green", "blue"], "keys": ["semi": ";", "dot": ".", "comma": ","], "half": "50%",
    "unicode": "Zoë 😀 🇫🇷", "undef": nil, "emptyList": [], "emptyKeys": [:],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURITemplates(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let template = try? URITemplate(text) else { return 0 }
    _ = template.variableNames
    if let first = try? template.expand(variables) {
        // Expansion is deterministic.
        guard (try? template.expand(variables)) == first else {
            fatalError("expansion of \(text.debugDescription) varies")
        }
    }
    return 0
}
