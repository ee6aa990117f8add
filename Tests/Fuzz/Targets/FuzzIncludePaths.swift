import HalleyHAL

// libFuzzer target: the include-path grammar and plan compiler.
// Each input line is one include path; all lines together form one plan.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIncludePaths(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for line in lines {
        if let path = try? IncludePath(line) {
            // The canonical form must parse back to the same segments.
            guard let reparsed = try? IncludePath(path.description), reparsed.segments == path.segments else {
                fatalError("canonical form of \(line.debugDescription) does not round-trip: \(path.description)")
            }
        }
    }
    _ = try? IncludePlan(paths: lines)
    return 0
}
