import Foundation
import HalleyHAL

extension ResourceStore {
    /// Creates a store that keeps its states in a SQLite file as well as in memory, so an app
    /// that is quit and relaunched (or opened offline) starts with what it had.
    ///
    /// ```swift
    /// var configuration = ResourceManager.Configuration()
    /// configuration.store = ResourceStore(file: ResourceStore.defaultFile, maximumBytesOnDisk: 50_000_000)
    /// let manager = ResourceManager(configuration: configuration)
    /// ```
    ///
    /// Opening reads nothing but the file's layout version: a URL's rows are read the first time
    /// it is used. States are written behind the caller's back in batched transactions (WAL
    /// journal), so a process killed at any instant reopens with each state as it was or as it
    /// became. Rows are keyed by URL and a salted fingerprint of the credentials (never the
    /// credentials), so one user's states are invisible to another's requests; ``wipe(scope:)``
    /// and ``wipe()`` remove them. A file that is corrupt or from a newer version is set aside
    /// (``DiskEvent/Kind/setAside``) and a fresh one starts; one from an older version is
    /// migrated. When SQLite cannot be loaded or the file cannot be opened, the store keeps its
    /// states in memory only and ``persistenceError`` says why.
    ///
    /// - Parameters:
    ///   - file: The database file (``defaultFile`` is the app's caches directory).
    ///   - maximumBytes: The bound in memory.
    ///   - maximumBytesOnDisk: The bound of the rows on disk, least recently used first.
    ///   - defaultFreshness: How long a state is fresh when its response has no `max-age` or
    ///     `no-cache`.
    ///   - embeddedCopiesAreComplete: `false` when embedded resources may be partial.
    ///   - onDiskEvent: Told of what the store did with its file (from a queue of its own).
    public convenience init(
        file: URL, maximumBytes: Int = 16_000_000, maximumBytesOnDisk: Int = 64_000_000,
        defaultFreshness: Duration = .zero, embeddedCopiesAreComplete: Bool = true,
        onDiskEvent: @escaping @Sendable (DiskEvent) -> Void = { _ in }
    ) {
        var durable: DurableStates?
        var problem: HalleyError?
        do {
            durable = try DurableStates(file: file, maximumBytes: maximumBytesOnDisk, events: onDiskEvent)
        } catch {
            problem = error
        }
        self.init(
            maximumBytes: maximumBytes, defaultFreshness: defaultFreshness,
            embeddedCopiesAreComplete: embeddedCopiesAreComplete, durable: durable, persistenceError: problem)
    }

    /// Where an app keeps its store by default: `Halley/ResourceStore.sqlite` in the caches
    /// directory (the system may clear it when space runs low; everything in it can be
    /// fetched again). On Apple platforms the directory is excluded from backups and its files
    /// are protected until the device is first unlocked after a restart.
    ///
    /// ```swift
    /// let store = ResourceStore(file: ResourceStore.defaultFile)
    /// ```
    public static var defaultFile: URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        var directory = caches.appendingPathComponent("Halley", isDirectory: true)
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            // Readable by a background refresh once the device was unlocked since its start.
            try? FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication])
        #else
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #endif
        #if canImport(Darwin)
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            try? directory.setResourceValues(values)
        #endif
        return directory.appendingPathComponent("ResourceStore.sqlite")
    }

    /// The store's file; `nil` when it keeps its states in memory only.
    ///
    /// ```swift
    /// print(ResourceStore(file: ResourceStore.defaultFile).file?.path ?? "in memory")
    /// ```
    public var file: URL? { durable?.file }

    /// Forgets every state of every credential scope, in memory and on disk, before it
    /// returns (observers hear nothing).
    ///
    /// ```swift
    /// ResourceStore(file: ResourceStore.defaultFile).wipe()
    /// ```
    public func wipe() {
        storage.withLock { storage in
            storage.removeScope(nil)
            durable?.wipe(scope: nil)
        }
    }

    /// Forgets the states of the credential scope `handle`'s requests carry now (the signed-in
    /// user's, at logout), in memory and on disk; other users' states stay.
    ///
    /// ```swift
    /// func signOut(_ manager: ResourceManager, store: ResourceStore) async {
    ///     await store.wipe(scope: manager.resource(at: URL(string: "https://api.example.com/")!))
    /// }
    /// ```
    public func wipe(scope handle: ResourceHandle) async {
        guard let request = try? await handle.probe() else { return }
        let credentials = scope(of: request)
        storage.withLock { storage in
            storage.removeScope(credentials)
            durable?.wipe(scope: credentials)
        }
    }

    /// Returns once every state stored before the call is written to the file (or its write
    /// failed); at once for a store in memory. An app may call it when it moves to the
    /// background.
    ///
    /// ```swift
    /// func willResignActive(_ store: ResourceStore) async {
    ///     await store.flush()
    /// }
    /// ```
    public func flush() async {
        await durable?.flush()
    }
}
