import Halley
import HalleyServerSide
import InMemoryLogging
import Logging

/// A logger whose records the test reads back, and Halley options that log to it.
struct LogCapture {
    let handler: InMemoryLogHandler
    let logger: Logger

    init(level: Logger.Level = .trace) {
        var handler = InMemoryLogHandler()
        handler.logLevel = level
        self.handler = handler
        logger = Logger(label: "halley.test") { _ in handler }
    }

    /// Call options whose observer logs through ``logger``.
    func options(requestLevel: Logger.Level = .debug) -> CallOptions {
        var options = CallOptions()
        options.observer = TraversalEventLogger(logger: logger, requestLevel: requestLevel).observer
        return options
    }

    /// Every record so far.
    var entries: [InMemoryLogHandler.Entry] { handler.entries }

    /// The records of one `halley.event`.
    func entries(for event: String) -> [InMemoryLogHandler.Entry] {
        entries.filter { $0.metadata["halley.event"]?.description == event }
    }
}

extension InMemoryLogHandler.Entry {
    /// A metadata value as text.
    subscript(key: String) -> String? { metadata[key]?.description }
}
