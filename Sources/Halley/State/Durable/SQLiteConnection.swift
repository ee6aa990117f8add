import Foundation

/// One connection to a database file, with its prepared statements kept for reuse.
///
/// Not thread-safe by itself: each owner uses it under its own lock or on its own queue (the
/// library is opened without its own mutexes for that reason).
final class SQLiteConnection {
    /// What a failed call said: SQLite's primary result code and its message.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let code: Int32
        let message: String

        /// The file is not a database, or its pages do not add up: set it aside.
        var isCorruption: Bool { code == 11 || code == 26 }
        /// Another connection (perhaps another process) holds the lock: try again later.
        var isBusy: Bool { code == 5 || code == 6 }

        var description: String { "SQLite error \(code): \(message)" }
    }

    /// How a result column is read.
    enum Kind {
        case integer, real, text, blob
    }

    enum Value {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
    }

    private let library: SQLiteLibrary
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating) the file at `path`, waiting up to `busyMilliseconds` for another
    /// connection's lock before a call fails as busy.
    init(library: SQLiteLibrary, path: String, busyMilliseconds: Int32 = 1_000) throws(Failure) {
        self.library = library
        var opened: OpaquePointer?
        // READWRITE | CREATE | NOMUTEX (one owner at a time, see above).
        let status = library.open(path, &opened, 0x2 | 0x4 | 0x8000, nil)
        guard status == 0, let opened else {
            let message = opened.flatMap { library.errorMessage($0) }.map { String(cString: $0) } ?? "cannot open"
            if let opened { _ = library.close(opened) }
            throw Failure(code: status & 0xff, message: message)
        }
        handle = opened
        _ = library.busyTimeout(handle, busyMilliseconds)
    }

    deinit {
        for statement in statements.values { _ = library.finalize(statement) }
        _ = library.close(handle)
    }

    /// Runs `sql` with `arguments`, returning every row's columns, read as `columns` says.
    @discardableResult
    func run(_ sql: String, _ arguments: [Value] = [], columns: [Kind] = []) throws(Failure) -> [[Value]] {
        let statement = try prepared(sql)
        defer { _ = library.reset(statement) }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch argument {
            case .integer(let value): status = library.bindInt64(statement, position, value)
            case .real(let value): status = library.bindDouble(statement, position, value)
            case .text(let value):
                status = value.withCString { library.bindText(statement, position, $0, -1, SQLiteLibrary.transient) }
            case .blob(let value):
                status = value.withUnsafeBytes { bytes in
                    // A zero-length blob still binds a blob (not NULL): any non-nil pointer.
                    library.bindBlob(
                        statement, position, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                        SQLiteLibrary.transient)
                }
            }
            guard status == 0 else { throw failure(status) }
        }
        var rows: [[Value]] = []
        while true {
            let status = library.step(statement)
            if status == 101 { return rows }
            guard status == 100 else { throw failure(status) }
            rows.append(columns.enumerated().map { column($0.offset, $0.element, of: statement) })
        }
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock is taken at once, so a
    /// busy database fails here, before any work), rolled back when it throws.
    func transaction(_ body: () throws(Failure) -> Void) throws(Failure) {
        try run("BEGIN IMMEDIATE")
        do {
            try body()
            try run("COMMIT")
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws(Failure) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = library.prepare(handle, sql, -1, &statement, nil)
        guard status == 0, let statement else { throw failure(status) }
        statements[sql] = statement
        return statement
    }

    private func column(_ index: Int, _ kind: Kind, of statement: OpaquePointer) -> Value {
        let position = Int32(index)
        switch kind {
        case .integer: return .integer(library.columnInt64(statement, position))
        case .real: return .real(library.columnDouble(statement, position))
        case .text:
            let count = Int(library.columnBytes(statement, position))
            guard let text = library.columnText(statement, position) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case .blob:
            // Read before its length, as SQLite asks (a conversion may change the length).
            let blob = library.columnBlob(statement, position)
            let count = Int(library.columnBytes(statement, position))
            guard let blob, count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: blob, count: count))
        }
    }

    private func failure(_ status: Int32) -> Failure {
        Failure(code: status & 0xff, message: library.errorMessage(handle).map { String(cString: $0) } ?? "unknown")
    }
}

extension SQLiteConnection.Value {
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
    var real: Double? {
        if case .real(let value) = self { return value }
        return nil
    }
    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
    var blob: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }
}
