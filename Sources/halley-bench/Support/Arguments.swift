/// The command line of `halley-bench`, parsed by hand so the package keeps no dependencies.
///
/// ```
/// halley-bench [--quick] [--scenario NAME]... [--requester NAME]... [--json FILE] [--list] [--help]
/// ```
struct BenchArguments: Sendable, Equatable {
    /// Where to write machine-readable results, if anywhere.
    var jsonPath: String?
    /// Fewer repetitions and smaller sizes: a smoke run of a few seconds.
    var quick = false
    /// Scenario names to run, in the order given; empty runs every scenario.
    var scenarios: [String] = []
    /// Requesters the transport scenario measures (`urlsession`, `curl`); empty for all.
    var requesters: [String] = []
    /// Print the scenario names and exit.
    var list = false
    /// Print the usage and exit.
    var help = false

    static let usage = """
        usage: halley-bench [--quick] [--scenario NAME]... [--requester NAME]... [--json FILE] [--list] [--help]

          --quick          fewer repetitions and smaller sizes (a smoke run of a few seconds)
          --scenario NAME  run only NAME (repeatable); see --list
          --requester NAME the transport scenario measures only NAME: urlsession or curl
                           (repeatable; all by default); curl-cost-* take curl (Halley),
                           raw (libcurl alone) or raw-hal (libcurl alone sending
                           Halley's Accept and Accept-Encoding)
          --json FILE      also write the results as JSON to FILE
          --list           print the scenario names and exit
          --help           print this text and exit

        Build in release mode: swift run -c release halley-bench
        """

    /// Parses the arguments that follow the program name.
    ///
    /// Accepts `--name value` and `--name=value`.
    ///
    /// - Throws: ``ArgumentError`` for an unknown option, a missing value, or a value given
    ///   to a flag.
    static func parse(_ arguments: [String]) throws(ArgumentError) -> BenchArguments {
        var result = BenchArguments()
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            func value() throws(ArgumentError) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.endIndex else { throw ArgumentError("\(name) needs a value") }
                defer { index += 1 }
                return arguments[index]
            }
            func flag() throws(ArgumentError) {
                if inlineValue != nil { throw ArgumentError("\(name) takes no value") }
            }
            switch name {
            case "--json": result.jsonPath = try value()
            case "--scenario": result.scenarios.append(try value())
            case "--requester": result.requesters.append(try value())
            case "--quick":
                try flag()
                result.quick = true
            case "--list":
                try flag()
                result.list = true
            case "--help", "-h":
                try flag()
                result.help = true
            default: throw ArgumentError("unknown argument \"\(argument)\"")
            }
        }
        return result
    }
}

/// A command line that cannot be understood.
struct ArgumentError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
