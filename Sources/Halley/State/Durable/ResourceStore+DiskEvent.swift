import Foundation
import HalleyHAL

extension ResourceStore {
    /// Something the durable store did with its file that the app may want to log: a file set
    /// aside, a layout migrated, a state it could not read, a write that failed.
    ///
    /// None of them fails a call: the store goes on serving from memory and the network.
    ///
    /// ```swift
    /// let store = ResourceStore(file: URL(fileURLWithPath: "/tmp/halley/states.sqlite")) { event in
    ///     print(event.kind, event.message)
    /// }
    /// ```
    public struct DiskEvent: Sendable, CustomStringConvertible {
        /// What happened. Open for new kinds, so switch with a `default`.
        public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
            /// The kind's stable name.
            public let rawValue: String
            /// Creates a kind from its name.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The file was corrupt or from a newer version: it was moved aside (``DiskEvent/file``
            /// names where) and a new, empty store started.
            public static let setAside = Kind(rawValue: "setAside")
            /// The file had an older layout and was brought to the current one.
            public static let migrated = Kind(rawValue: "migrated")
            /// One stored state could not be read (its bytes changed, or its body no longer
            /// parses): it was removed, and the resource is fetched again.
            public static let unreadableState = Kind(rawValue: "unreadableState")
            /// A batch of writes failed (a read-only or full disk, a file locked too long by
            /// another process): the states stay in memory; a locked file is tried again.
            public static let writeFailed = Kind(rawValue: "writeFailed")
            /// The kind's name.
            public var description: String { rawValue }
        }

        /// What happened.
        public let kind: Kind
        /// The file involved: the store's, or where a set-aside file went.
        public let file: URL
        /// One readable sentence saying what and where.
        public let message: String

        /// The message.
        public var description: String { message }
    }
}

extension HalleyError.Code {
    /// A ``ResourceStore`` asked to keep its states in a file cannot (SQLite cannot be loaded,
    /// or the file cannot be opened or created): it keeps them in memory only.
    public static let storeUnavailable = HalleyError.Code(rawValue: "storeUnavailable")
    /// A get with ``CachePolicy/storedOnly`` found nothing stored for its URL; nothing was sent.
    public static let notStored = HalleyError.Code(rawValue: "notStored")
}
