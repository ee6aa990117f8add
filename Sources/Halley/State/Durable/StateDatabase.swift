import Foundation
import HalleyHAL

/// The durable store's file: its schema and migrations, opening (and setting aside a file it
/// cannot use), and the reads and writes of rows.
///
/// Two connections in WAL mode: one reads rows for the store's lookups, the other writes the
/// batches of ``DurableStates``; WAL lets a reader and a writer work at once, and a process
/// killed at any instant leaves each row as the last committed transaction left it.
/// Another process may open the same file (an app and its extension): SQLite's locks order
/// the writers, and a batch that finds the file busy is tried again later.
final class StateDatabase: Sendable {
    /// The layout this code writes. 1: the first layout; 2: each row's `Vary` names and a
    /// checksum of its columns; 3: each credential fingerprint once, in `scopes`, and rows
    /// keyed by its number (the 32 bytes in a row and again in its key were a twentieth of
    /// the file).
    static let schemaVersion = 3

    let file: URL
    /// Mixed into the credential fingerprints of this file's rows, so that a fingerprint means
    /// nothing outside it; drawn when the file is created.
    let salt: [UInt8]
    private let reader: Guarded
    private let writer: Guarded

    /// Opens `file`, creating it (and its directory) when missing, migrating an older layout,
    /// and setting aside (with an event) a file that is corrupt or from a newer version, to
    /// start afresh. Reads no state: only the layout's version and the salt.
    ///
    /// - Throws: ``HalleyError/Code/storeUnavailable`` when SQLite cannot be loaded or the file
    ///   cannot be opened or created at all.
    ///
    /// - Parameter salt: The salt a new file gets (a store that set aside its file mid-run keeps
    ///   its fingerprints); a random one when `nil`.
    init(file: URL, salt: [UInt8]? = nil, events: @escaping @Sendable (ResourceStore.DiskEvent) -> Void)
        throws(HalleyError)
    {
        self.file = file
        let library: SQLiteLibrary
        switch SQLiteLibrary.shared {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            throw HalleyError(
                code: .storeUnavailable, url: file,
                message: "the resource store keeps its states in memory only: \(failure.reason)")
        }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw Self.unavailable(file, "its directory cannot be created (\(error.localizedDescription))")
        }
        var opened: (salt: [UInt8], writer: SQLiteConnection, reader: SQLiteConnection)?
        var setAside = false
        while opened == nil {
            do {
                let connection = try SQLiteConnection(library: library, path: file.path)
                let salt = try Self.prepare(connection, file: file, salt: salt, events: events)
                opened = (salt, connection, try SQLiteConnection(library: library, path: file.path))
            } catch let failure as SQLiteConnection.Failure where !setAside && failure.isCorruption {
                setAside = true
                Self.setAside(file, because: "it is not a readable database (\(failure.message))", events: events)
            } catch let newer as NewerSchema where !setAside {
                setAside = true
                Self.setAside(
                    file, because: "it was written by a newer version of Halley (layout \(newer.version))",
                    events: events)
            } catch {
                throw Self.unavailable(file, "\(error)")
            }
        }
        guard let opened else { throw Self.unavailable(file, "it did not open") }
        self.salt = opened.salt
        writer = Guarded(opened.writer)
        reader = Guarded(opened.reader)
    }

    private struct NewerSchema: Error {
        let version: Int64
    }

    private static func unavailable(_ file: URL, _ reason: String) -> HalleyError {
        HalleyError(
            code: .storeUnavailable, url: file,
            message: "the resource store keeps its states in memory only: the file cannot be opened, \(reason)")
    }

    /// WAL, the layout (created or migrated) and the salt.
    private static func prepare(
        _ connection: SQLiteConnection, file: URL, salt: [UInt8]?, events: @Sendable (ResourceStore.DiskEvent) -> Void
    ) throws -> [UInt8] {
        // A new file's page size and vacuum mode, set before WAL: SQLite fixes both when the
        // journal mode is written (an existing file keeps its own; these change nothing there).
        // Freed pages go back to the system. Rows of about 1 KiB fill 8 KiB pages with less
        // left over than 4 KiB ones.
        try connection.run("PRAGMA page_size=8192")
        try connection.run("PRAGMA auto_vacuum=INCREMENTAL")
        // Reading the journal mode reads the file's header: a file that is not a database fails here.
        try connection.run("PRAGMA journal_mode=WAL", columns: [.text])
        // In WAL mode NORMAL loses no committed transaction when the process dies (only, at
        // worst, the last ones on power loss): what the store acknowledges survives a kill.
        try connection.run("PRAGMA synchronous=NORMAL")
        let version = try connection.run("PRAGMA user_version", columns: [.integer]).first?.first?.integer ?? 0
        if version > Int64(schemaVersion) { throw NewerSchema(version: version) }
        if version == 0 {
            try connection.transaction { () throws(SQLiteConnection.Failure) in
                try create(connection, salt: salt)
            }
        } else if version < Int64(schemaVersion) {
            try connection.transaction { () throws(SQLiteConnection.Failure) in
                try migrate(connection, from: version)
            }
            events(
                ResourceStore.DiskEvent(
                    kind: .migrated, file: file,
                    message:
                        "the resource store at \(file.path) was migrated from layout \(version) to \(schemaVersion)"
                ))
        }
        let salt = try connection.run("SELECT value FROM meta WHERE key = 'salt'", columns: [.blob]).first?.first?.blob
        guard let salt, salt.count == 32 else {
            throw SQLiteConnection.Failure(code: 11, message: "its credential salt is missing")
        }
        return Array(salt)
    }

    /// The current layout in a new file.
    private static func create(_ connection: SQLiteConnection, salt: [UInt8]?) throws(SQLiteConnection.Failure) {
        try createStates(connection)
        try connection.run("CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        var generator = SystemRandomNumberGenerator()
        let salt = Data(salt ?? (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try connection.run("INSERT INTO meta(key, value) VALUES ('salt', ?)", [.blob(salt)])
        try connection.run("PRAGMA user_version=\(schemaVersion)")
    }

    /// The current layout's tables of states and of scopes (a new file's, or a migration's).
    private static func createStates(_ connection: SQLiteConnection) throws(SQLiteConnection.Failure) {
        try connection.run(
            "CREATE TABLE scopes(id INTEGER PRIMARY KEY, fingerprint BLOB NOT NULL UNIQUE)")
        try connection.run(
            """
            CREATE TABLE states(scope INTEGER NOT NULL, url TEXT NOT NULL, variant TEXT NOT NULL, body BLOB NOT NULL,
            status INTEGER NOT NULL, headers TEXT NOT NULL, received REAL NOT NULL, fresh_until REAL NOT NULL,
            invalidated INTEGER NOT NULL, embedded INTEGER NOT NULL, used INTEGER NOT NULL, bytes INTEGER NOT NULL,
            vary TEXT NOT NULL DEFAULT '', checksum INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(url, scope, variant))
            """)
        try connection.run("CREATE INDEX states_used ON states(used)")
    }

    /// Brings an older layout to the current one, in the caller's transaction.
    private static func migrate(_ connection: SQLiteConnection, from version: Int64) throws(SQLiteConnection.Failure) {
        if version < 2 {
            // Layout 1 kept no `Vary` names (its states varied on nothing) and no checksums:
            // each row's is computed from the bytes it has now.
            try connection.run("ALTER TABLE states ADD COLUMN vary TEXT NOT NULL DEFAULT ''")
            try connection.run("ALTER TABLE states ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0")
            // Layout 2's key starts with the URL (a write invalidates its target in every
            // scope); layout 1's started with the scope, so its rows get an index by URL.
            try connection.run("CREATE INDEX IF NOT EXISTS states_url ON states(url)")
            let rows = try connection.run(
                "SELECT rowid, scope, \(valueColumns) FROM states", columns: [.integer] + kinds)
            for values in rows {
                let row = Self.row(Array(values.dropFirst()))
                try connection.run(
                    "UPDATE states SET checksum = ? WHERE rowid = ?", [.integer(row.checksum), values[0]])
            }
        }
        if version < 3 {
            // Layout 2 kept the fingerprint in every row: each moves to `scopes` once, and the
            // rows are copied to a table keyed by its number (SQLite cannot change a key's type
            // in place). The checksums stay: they digest the fingerprint, not its number.
            try connection.run("ALTER TABLE states RENAME TO states_2")
            try connection.run("DROP INDEX IF EXISTS states_used")
            try connection.run("DROP INDEX IF EXISTS states_url")
            try createStates(connection)
            try connection.run("INSERT OR IGNORE INTO scopes(fingerprint) SELECT DISTINCT scope FROM states_2")
            try connection.run(
                "INSERT INTO states(scope, \(valueColumns), used, bytes, checksum) "
                    + "SELECT scopes.id, \(valueColumns), used, bytes, checksum "
                    + "FROM states_2 JOIN scopes ON scopes.fingerprint = states_2.scope")
            try connection.run("DROP TABLE states_2")
        }
        try connection.run("PRAGMA user_version=\(schemaVersion)")
    }

    /// Moves a file the store cannot use (and its WAL and shared-memory files) aside, so that a
    /// fresh one starts and the old one stays for a support request.
    static func setAside(
        _ file: URL, because reason: String, events: @Sendable (ResourceStore.DiskEvent) -> Void
    ) {
        let stamp = Int(Date().timeIntervalSince1970)
        let target = file.deletingLastPathComponent()
            .appendingPathComponent("\(file.lastPathComponent).unreadable-\(stamp)")
        let manager = FileManager.default
        try? manager.removeItem(at: target)
        if (try? manager.moveItem(at: file, to: target)) == nil { try? manager.removeItem(at: file) }
        for suffix in ["-wal", "-shm"] {
            let side = URL(fileURLWithPath: file.path + suffix)
            try? manager.removeItem(at: URL(fileURLWithPath: target.path + suffix))
            if (try? manager.moveItem(at: side, to: URL(fileURLWithPath: target.path + suffix))) == nil {
                try? manager.removeItem(at: side)
            }
        }
        events(
            ResourceStore.DiskEvent(
                kind: .setAside, file: target,
                message: "the resource store at \(file.path) was set aside as \(target.lastPathComponent) because "
                    + "\(reason); a new, empty store starts"))
    }

    // MARK: Rows

    /// A row's columns after its scope, the same in every layout.
    private static let valueColumns =
        "url, variant, body, status, headers, received, fresh_until, invalidated, embedded, vary"
    /// A row's columns with its scope's fingerprint, read from `rowsWithScopes`.
    private static let columns = "scopes.fingerprint, \(valueColumns)"
    /// The rows joined to their scopes' fingerprints.
    private static let rowsWithScopes = "states JOIN scopes ON scopes.id = states.scope"
    /// The number of the scope whose fingerprint is the statement's next argument.
    private static let scopeNumber = "(SELECT id FROM scopes WHERE fingerprint = ?)"
    private static let kinds: [SQLiteConnection.Kind] = [
        .blob, .text, .text, .blob, .integer, .text, .real, .real, .integer, .integer, .text,
    ]

    /// A row read back, and whether its bytes are the ones written (its checksum matches).
    struct Read: Sendable {
        let row: DurableRow
        let isIntact: Bool
    }

    /// The rows of `url` in `scope`, every variant.
    func rows(url: String, scope: [UInt8]) throws(SQLiteConnection.Failure) -> [Read] {
        try reader.use { connection throws(SQLiteConnection.Failure) in
            try connection.run(
                "SELECT \(Self.columns), checksum FROM \(Self.rowsWithScopes) WHERE states.scope = \(Self.scopeNumber) "
                    + "AND url = ?",
                [.blob(Data(scope)), .text(url)], columns: Self.kinds + [.integer]
            ).map { values in
                let row = Self.row(values)
                return Read(row: row, isIntact: values[11].integer == row.checksum)
            }
        }
    }

    private static func row(_ values: [SQLiteConnection.Value]) -> DurableRow {
        DurableRow(
            scope: values[0].blob ?? Data(), url: values[1].text ?? "", variant: values[2].text ?? "",
            body: values[3].blob ?? Data(), status: Int(values[4].integer ?? 0), headers: values[5].text ?? "",
            received: values[6].real ?? 0, freshUntil: values[7].real ?? 0, isInvalidated: values[8].integer != 0,
            isEmbedded: values[9].integer != 0, vary: values[10].text ?? "")
    }

    /// One change of a batch.
    enum Change: Sendable {
        case put(DurableRow)
        case delete(StateKey)
        /// A row was read again: it moves to the back of the eviction order.
        case touch(StateKey)
    }

    /// Applies `changes` in one transaction, then evicts the least recently used rows until
    /// the rows' bytes fit in `maximumBytes`. Returns how many rows were evicted.
    @discardableResult
    func write(_ changes: [Change], maximumBytes: Int) throws(SQLiteConnection.Failure) -> Int {
        try writer.use { connection throws(SQLiteConnection.Failure) in
            var evicted = 0
            try connection.transaction { () throws(SQLiteConnection.Failure) in
                var used = Int64(Date().timeIntervalSince1970 * 1_000_000)
                // A batch names one or two scopes: each one's number is looked up (or made) once.
                var numbers: [Data: Int64] = [:]
                func number(_ fingerprint: Data) throws(SQLiteConnection.Failure) -> SQLiteConnection.Value {
                    if let known = numbers[fingerprint] { return .integer(known) }
                    try connection.run("INSERT OR IGNORE INTO scopes(fingerprint) VALUES (?)", [.blob(fingerprint)])
                    let found =
                        try connection.run(
                            "SELECT id FROM scopes WHERE fingerprint = ?", [.blob(fingerprint)], columns: [.integer]
                        ).first?.first?.integer ?? 0
                    numbers[fingerprint] = found
                    return .integer(found)
                }
                for change in changes {
                    used += 1
                    switch change {
                    case .put(let row):
                        try connection.run(
                            "INSERT OR REPLACE INTO states(scope, \(Self.valueColumns), used, bytes, checksum) "
                                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [
                                try number(row.scope), .text(row.url), .text(row.variant), .blob(row.body),
                                .integer(Int64(row.status)), .text(row.headers), .real(row.received),
                                .real(row.freshUntil), .integer(row.isInvalidated ? 1 : 0),
                                .integer(row.isEmbedded ? 1 : 0), .text(row.vary), .integer(used),
                                .integer(Int64(row.bytes)), .integer(row.checksum),
                            ])
                    case .delete(let key):
                        try connection.run(
                            "DELETE FROM states WHERE scope = \(Self.scopeNumber) AND url = ? AND variant = ?",
                            [.blob(Data(key.scope)), .text(key.url), .text(key.variant)])
                    case .touch(let key):
                        try connection.run(
                            "UPDATE states SET used = ? WHERE scope = \(Self.scopeNumber) AND url = ? AND variant = ?",
                            [.integer(used), .blob(Data(key.scope)), .text(key.url), .text(key.variant)])
                    }
                }
                evicted = try Self.evict(connection, maximumBytes: maximumBytes)
            }
            if evicted > 0 { _ = try? connection.run("PRAGMA incremental_vacuum") }
            return evicted
        }
    }

    /// Deletes the oldest rows while the rows' bytes exceed `maximumBytes`.
    private static func evict(_ connection: SQLiteConnection, maximumBytes: Int) throws(SQLiteConnection.Failure)
        -> Int
    {
        var total = try connection.run("SELECT total(bytes) FROM states", columns: [.real]).first?.first?.real ?? 0
        var evicted = 0
        while total > Double(maximumBytes) {
            let oldest = try connection.run(
                "SELECT url, scope, variant, bytes FROM states ORDER BY used LIMIT 64",
                columns: [.text, .integer, .text, .integer])
            guard !oldest.isEmpty else { break }
            for row in oldest where total > Double(maximumBytes) {
                try connection.run(
                    "DELETE FROM states WHERE url = ? AND scope = ? AND variant = ?", [row[0], row[1], row[2]])
                total -= Double(row[3].integer ?? 0)
                evicted += 1
            }
        }
        return evicted
    }

    /// Marks every scope's rows of `urls` invalidated (a write changed them), and deletes
    /// every scope's rows of `deleted`.
    func invalidate(_ urls: [String], deleting deleted: [String]) throws(SQLiteConnection.Failure) {
        guard !urls.isEmpty || !deleted.isEmpty else { return }
        try writer.use { connection throws(SQLiteConnection.Failure) in
            try connection.transaction { () throws(SQLiteConnection.Failure) in
                for url in urls {
                    let rows = try connection.run(
                        "SELECT \(Self.columns) FROM \(Self.rowsWithScopes) WHERE url = ? AND invalidated = 0",
                        [.text(url)],
                        columns: Self.kinds)
                    for values in rows {
                        let row = Self.row(values).invalidated()
                        try connection.run(
                            "UPDATE states SET invalidated = 1, checksum = ? "
                                + "WHERE url = ? AND scope = \(Self.scopeNumber) AND variant = ?",
                            [.integer(row.checksum), .text(row.url), .blob(row.scope), .text(row.variant)])
                    }
                }
                for url in deleted { try connection.run("DELETE FROM states WHERE url = ?", [.text(url)]) }
            }
        }
    }

    /// A digest of every row's URL and scope, for answering "nothing stored" with no query.
    ///
    /// Read on the writer's connection (it runs first on the writer's queue): on the reader's,
    /// the first use of a URL after opening a large file waited for the whole scan.
    func slotDigests(_ digest: (Data, String) -> Int) throws(SQLiteConnection.Failure) -> Set<Int> {
        try writer.use { connection throws(SQLiteConnection.Failure) in
            var digests: Set<Int> = []
            for row in try connection.run(
                "SELECT scopes.fingerprint, url FROM \(Self.rowsWithScopes)", columns: [.blob, .text])
            {
                digests.insert(digest(row[0].blob ?? Data(), row[1].text ?? ""))
            }
            return digests
        }
    }

    /// Copies the WAL into the file and empties it: done when the writer is idle, so the WAL
    /// does not keep its largest size on disk.
    func checkpoint() {
        _ = try? writer.use { connection throws(SQLiteConnection.Failure) in
            try connection.run("PRAGMA wal_checkpoint(TRUNCATE)", columns: [.integer, .integer, .integer])
        }
    }

    /// Deletes the rows of `scope`, or every row.
    func wipe(scope: [UInt8]?) throws(SQLiteConnection.Failure) {
        try writer.use { connection throws(SQLiteConnection.Failure) in
            if let scope {
                try connection.transaction { () throws(SQLiteConnection.Failure) in
                    try connection.run("DELETE FROM states WHERE scope = \(Self.scopeNumber)", [.blob(Data(scope))])
                    try connection.run("DELETE FROM scopes WHERE fingerprint = ?", [.blob(Data(scope))])
                }
            } else {
                try connection.transaction { () throws(SQLiteConnection.Failure) in
                    try connection.run("DELETE FROM states")
                    try connection.run("DELETE FROM scopes")
                }
            }
            _ = try? connection.run("PRAGMA incremental_vacuum")
        }
    }

    /// The rows' count and their counted bytes (for tests and the benchmark).
    func totals() throws(SQLiteConnection.Failure) -> (count: Int, bytes: Int) {
        try reader.use { connection throws(SQLiteConnection.Failure) in
            let row = try connection.run("SELECT count(*), total(bytes) FROM states", columns: [.integer, .real])
            return (Int(row.first?[0].integer ?? 0), Int(row.first?[1].real ?? 0))
        }
    }

    /// Runs `body` holding the writer's connection: what ``DurableStates`` does to take a batch
    /// and write it as one step.
    func holdingWriter<Result>(_ body: () throws -> Result) rethrows -> Result {
        try writer.hold(body)
    }
}

/// A connection and the lock every use of it takes.
///
/// Unchecked sendability is sound: the connection is private and only touched inside
/// `use`, under the lock, so no two threads use it at once (SQLite's own connection mutex is
/// off, see ``SQLiteConnection``); it is closed only in `deinit`, when no other reference exists.
private final class Guarded: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    func use<Result>(_ body: (SQLiteConnection) throws(SQLiteConnection.Failure) -> Result)
        throws(SQLiteConnection.Failure) -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Holds the lock around `body` (which may call ``use(_:)``: the lock is recursive).
    func hold<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
