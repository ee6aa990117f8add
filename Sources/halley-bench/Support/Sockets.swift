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

/// `127.0.0.1:port` as the socket calls take it; port 0 asks the kernel for a free one.
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
