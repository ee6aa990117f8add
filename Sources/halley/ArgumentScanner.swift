/// One option a command accepts.
struct OptionSpec: Sendable {
    /// Whether the option stands alone or takes a value, and whether it may repeat.
    enum Kind: Sendable {
        /// `--compact`: present or not.
        case flag
        /// `--fixtures DIR`: exactly one value; giving it twice is a mistake, not an override.
        case single
        /// `--include PATH`: any number of values, kept in order.
        case repeatable
    }

    /// The long name with its dashes, e.g. `--include`.
    let name: String
    /// Flag or value option.
    let kind: Kind
    /// Other spellings, such as curl's short `-H` for `--header`; values are kept under ``name``.
    var aliases: [String] = []
}

/// The options and operands of one command line, before their values are interpreted.
struct ScannedArguments {
    /// Operands, in order.
    var operands: [String] = []
    /// Flags that were given.
    var flags: Set<String> = []
    /// Values per option name, in the order given.
    var values: [String: [String]] = [:]

    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of a single-value option.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Whether a flag was given.
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A small getopt-style scanner, written in-house so the package keeps no dependencies.
///
/// Accepts `--name value`, `--name=value`, options before or after operands, and `--` to
/// end options (so an operand may start with `-`). A value is taken verbatim from the next
/// argument even if it starts with `-`, as getopt does.
struct ArgumentScanner {
    /// The command being scanned, for messages (`get`, `links`, ...).
    let command: String
    /// What the command accepts.
    let options: [OptionSpec]

    /// Splits `arguments` (without the command name) into options and operands.
    ///
    /// - Throws: ``ToolError`` (usage) for an unknown option, a missing value, a value given
    ///   to a flag, or a single-value option given twice.
    func scan(_ arguments: [String]) throws(ToolError) -> ScannedArguments {
        var result = ScannedArguments()
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result.operands.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                result.operands.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name || $0.aliases.contains(name) }) else {
                throw unknownOption(name)
            }
            name = spec.name
            switch spec.kind {
            case .flag:
                if inlineValue != nil {
                    throw ToolError.usage("option \(name) takes no value", command: command)
                }
                result.flags.insert(name)
            case .single, .repeatable:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                } else {
                    throw ToolError.usage("option \(name) needs a value", command: command)
                }
                if case .single = spec.kind, result.values[name] != nil {
                    throw ToolError.usage("option \(name) given more than once", command: command)
                }
                result.values[name, default: []].append(value)
            }
        }
        return result
    }

    private func unknownOption(_ name: String) -> ToolError {
        let hint = Suggestion.closest(to: name, among: options.map(\.name)).map { "; did you mean \($0)?" } ?? ""
        return ToolError.usage("unknown option \(name) for '\(command)'\(hint)", command: command)
    }
}

/// "Did you mean" hints for mistyped commands and options.
enum Suggestion {
    /// The candidate closest to `word` by edit distance, if it is close enough to be a typo
    /// (at most a third of the word, and at most 3 edits).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = min(3, max(1, word.count / 3))
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance between two strings, by characters.
    static func distance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs)
        let b = Array(rhs)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }
}
