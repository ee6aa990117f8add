import Foundation
import Halley

/// Writes the tool's output: results to stdout, diagnostics to stderr, one whole line per
/// write.
///
/// Observer callbacks run on many tasks at once, so every write goes through one lock and
/// one `write(2)`-sized call: lines from concurrent requests never interleave mid-line.
final class Console: Sendable {
    /// The process-wide console.
    static let shared = Console()

    /// The two output streams, written only while their lock is held.
    private struct Streams: Sendable {
        let output = FileHandle.standardOutput
        let errors = FileHandle.standardError
    }

    /// Serialises writes. It guards the handles themselves rather than an empty value: the
    /// storage of a zero-sized value shares its address with the lock object's header, and
    /// ThreadSanitizer then reports every retain of the object racing with the locked access.
    private let streams = LockedValue(Streams())

    /// Writes `text` to stdout as given (the caller supplies the final newline).
    ///
    /// - Returns: Whether it was written: `false` once the reader has gone away.
    @discardableResult
    func out(_ text: String) -> Bool {
        write(Data(text.utf8), to: \.output)
    }

    /// Writes one diagnostic line to stderr, made safe for a terminal first.
    func err(_ line: String) {
        write(Data((Console.singleLine(line) + "\n").utf8), to: \.errors)
    }

    /// Writes several stderr lines in one go, so nothing lands between them (the waterfall).
    func err(lines: [String]) {
        guard !lines.isEmpty else { return }
        let text = lines.map { Console.singleLine($0) + "\n" }.joined()
        write(Data(text.utf8), to: \.errors)
    }

    /// The longest diagnostic line, in characters; longer ones lose their middle.
    static let maximumLineLength = 800

    /// Writes an error line: `halley: <message>`.
    ///
    /// A message longer than ``maximumLineLength`` (a JSON path 256 levels deep, a URL of
    /// kilobytes) keeps its start and end, which say what failed and where.
    func error(_ message: String) {
        var line = "halley: " + Console.singleLine(message)
        if line.count > Console.maximumLineLength {
            let keep = Console.maximumLineLength / 2 - 1
            line = line.prefix(keep) + "…" + line.suffix(keep)
        }
        err(line)
    }

    @discardableResult
    private func write(_ data: Data, to stream: KeyPath<Streams, FileHandle> & Sendable) -> Bool {
        // `write(contentsOf:)` throws instead of trapping when the reader has gone away
        // (e.g. `halley get ... | head -1`); there is nobody left to tell, so drop it.
        streams.withLock { streams in (try? streams[keyPath: stream].write(contentsOf: data)) != nil }
    }

    /// `text` with every control character made visible (`\n` → `\u000A`), so a hostile
    /// server's message cannot break a line apart or send terminal escape sequences.
    static func singleLine(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += String(format: "\\u%04X", scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 and C1 controls and DEL, plus the Unicode line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return false
        }
    }
}
