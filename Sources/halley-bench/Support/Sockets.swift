#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `SOCK_STREAM` as `socket(2)` takes it, on every platform: glibc declares the socket types
/// as a C enum, which Swift imports as a struct with a `rawValue`; Darwin's are macros,
/// imported as plain `Int32`s (as in HalleyTesting's `StubServer`).
var streamSocketType: Int32 {
    #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
    #else
        SOCK_STREAM
    #endif
}
