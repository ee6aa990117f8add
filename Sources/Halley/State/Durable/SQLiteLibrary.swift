import Foundation

#if canImport(SQLite3)
    import SQLite3
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few SQLite functions the durable store calls, found once per process.
///
/// Apple platforms ship SQLite as the `SQLite3` module, so there the table holds its
/// functions. On Linux the root package may depend on no package or header, so `libsqlite3`
/// is opened at run time (as libcurl is) and each function is looked up by name; the
/// declarations below are SQLite's stable C API (https://sqlite.org/c3ref/funclist.html).
struct SQLiteLibrary: Sendable {
    typealias Destructor = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let open:
        @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) ->
            Int32
    let close: @convention(c) (OpaquePointer?) -> Int32
    let prepare:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    let step: @convention(c) (OpaquePointer?) -> Int32
    let reset: @convention(c) (OpaquePointer?) -> Int32
    let finalize: @convention(c) (OpaquePointer?) -> Int32
    let bindBlob: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int32, Destructor?) -> Int32
    let bindText: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, Int32, Destructor?) -> Int32
    let bindInt64: @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    let bindDouble: @convention(c) (OpaquePointer?, Int32, Double) -> Int32
    let columnBlob: @convention(c) (OpaquePointer?, Int32) -> UnsafeRawPointer?
    let columnBytes: @convention(c) (OpaquePointer?, Int32) -> Int32
    let columnText: @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    let columnInt64: @convention(c) (OpaquePointer?, Int32) -> Int64
    let columnDouble: @convention(c) (OpaquePointer?, Int32) -> Double
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    let busyTimeout: @convention(c) (OpaquePointer?, Int32) -> Int32

    /// The library, or why it cannot be used (read once: loading is not undone).
    static let shared: Result<SQLiteLibrary, SQLiteLoadFailure> = load()

    private static func load() -> Result<SQLiteLibrary, SQLiteLoadFailure> {
        #if canImport(SQLite3)
            return .success(
                SQLiteLibrary(
                    open: sqlite3_open_v2, close: sqlite3_close_v2, prepare: sqlite3_prepare_v2, step: sqlite3_step,
                    reset: sqlite3_reset, finalize: sqlite3_finalize, bindBlob: sqlite3_bind_blob,
                    bindText: sqlite3_bind_text, bindInt64: sqlite3_bind_int64, bindDouble: sqlite3_bind_double,
                    columnBlob: sqlite3_column_blob, columnBytes: sqlite3_column_bytes,
                    columnText: sqlite3_column_text, columnInt64: sqlite3_column_int64,
                    columnDouble: sqlite3_column_double, errorMessage: sqlite3_errmsg,
                    busyTimeout: sqlite3_busy_timeout))
        #elseif canImport(Glibc) || canImport(Musl)
            // The versioned name first: distributions install the unversioned link only with
            // the development package.
            let names = ["libsqlite3.so.0", "libsqlite3.so"]
            guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                return .failure(SQLiteLoadFailure(reason: "cannot load libsqlite3 (\(reason))"))
            }
            var missing: [String] = []
            // The library stays loaded for the life of the process: stores may outlive any user.
            func find<Function>(_ name: String, as type: Function.Type) -> Function? {
                guard let symbol = dlsym(handle, name) else {
                    missing.append(name)
                    return nil
                }
                return unsafeBitCast(symbol, to: type)
            }
            let library = (
                open: find("sqlite3_open_v2", as: type(of: placeholder.open)),
                close: find("sqlite3_close_v2", as: type(of: placeholder.close)),
                prepare: find("sqlite3_prepare_v2", as: type(of: placeholder.prepare)),
                step: find("sqlite3_step", as: type(of: placeholder.step)),
                reset: find("sqlite3_reset", as: type(of: placeholder.reset)),
                finalize: find("sqlite3_finalize", as: type(of: placeholder.finalize)),
                bindBlob: find("sqlite3_bind_blob", as: type(of: placeholder.bindBlob)),
                bindText: find("sqlite3_bind_text", as: type(of: placeholder.bindText)),
                bindInt64: find("sqlite3_bind_int64", as: type(of: placeholder.bindInt64)),
                bindDouble: find("sqlite3_bind_double", as: type(of: placeholder.bindDouble)),
                columnBlob: find("sqlite3_column_blob", as: type(of: placeholder.columnBlob)),
                columnBytes: find("sqlite3_column_bytes", as: type(of: placeholder.columnBytes)),
                columnText: find("sqlite3_column_text", as: type(of: placeholder.columnText)),
                columnInt64: find("sqlite3_column_int64", as: type(of: placeholder.columnInt64)),
                columnDouble: find("sqlite3_column_double", as: type(of: placeholder.columnDouble)),
                errorMessage: find("sqlite3_errmsg", as: type(of: placeholder.errorMessage)),
                busyTimeout: find("sqlite3_busy_timeout", as: type(of: placeholder.busyTimeout))
            )
            guard let open = library.open, let close = library.close, let prepare = library.prepare,
                let step = library.step, let reset = library.reset, let finalize = library.finalize,
                let bindBlob = library.bindBlob, let bindText = library.bindText, let bindInt64 = library.bindInt64,
                let bindDouble = library.bindDouble, let columnBlob = library.columnBlob,
                let columnBytes = library.columnBytes, let columnText = library.columnText,
                let columnInt64 = library.columnInt64, let columnDouble = library.columnDouble,
                let errorMessage = library.errorMessage, let busyTimeout = library.busyTimeout
            else {
                return .failure(
                    SQLiteLoadFailure(reason: "libsqlite3 has no \(missing.joined(separator: ", ")) (it is too old)"))
            }
            return .success(
                SQLiteLibrary(
                    open: open, close: close, prepare: prepare, step: step, reset: reset, finalize: finalize,
                    bindBlob: bindBlob, bindText: bindText, bindInt64: bindInt64, bindDouble: bindDouble,
                    columnBlob: columnBlob, columnBytes: columnBytes, columnText: columnText,
                    columnInt64: columnInt64, columnDouble: columnDouble, errorMessage: errorMessage,
                    busyTimeout: busyTimeout))
        #else
            return .failure(SQLiteLoadFailure(reason: "this platform has no SQLite"))
        #endif
    }

    #if !canImport(SQLite3) && (canImport(Glibc) || canImport(Musl))
        /// Only its field types are used: they name the function types `find` casts to.
        private static let placeholder = SQLiteLibrary(
            open: { _, _, _, _ in 0 }, close: { _ in 0 }, prepare: { _, _, _, _, _ in 0 }, step: { _ in 0 },
            reset: { _ in 0 }, finalize: { _ in 0 }, bindBlob: { _, _, _, _, _ in 0 }, bindText: { _, _, _, _, _ in 0 },
            bindInt64: { _, _, _ in 0 }, bindDouble: { _, _, _ in 0 }, columnBlob: { _, _ in nil },
            columnBytes: { _, _ in 0 }, columnText: { _, _ in nil }, columnInt64: { _, _ in 0 },
            columnDouble: { _, _ in 0 }, errorMessage: { _ in nil }, busyTimeout: { _, _ in 0 })
    #endif

    /// SQLite's `SQLITE_TRANSIENT`: the library copies a bound value before the call returns.
    static let transient = unsafeBitCast(-1, to: Destructor.self)
}

/// Why SQLite could not be loaded.
struct SQLiteLoadFailure: Error, Sendable {
    let reason: String
}
