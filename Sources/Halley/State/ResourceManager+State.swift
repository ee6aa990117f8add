import Foundation

extension ResourceManager {
    /// The handle of the one state of this absolute URL (normalised per RFC 3986, section 6)
    /// in the credential scope of `options`: the credentials its requests carry.
    ///
    /// ```swift
    /// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    /// let state = try await order.get()
    /// ```
    ///
    /// States are kept by ``Configuration/store``; without one, the handle fetches every time.
    public func resource(at url: URL, options: CallOptions = CallOptions()) -> ResourceHandle {
        ResourceHandle(
            manager: self, url: url, options: options, trustRoot: url,
            store: configuration.store ?? ResourceStore(maximumBytes: 0))
    }
}
