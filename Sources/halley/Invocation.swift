import Foundation
import Halley

/// What the command line asks for, with every value already checked.
enum Invocation {
    /// `--help`, `help [COMMAND]` or `COMMAND --help`: `nil` for the overview.
    case help(command: String?)
    /// `--version`.
    case version
    /// `get URL ...`.
    case get(GetArguments)
    /// `items URL ...`.
    case items(ItemsArguments)
    /// `links URL ...`.
    case links(LinksArguments)
    /// `expand TEMPLATE ...`.
    case expand(ExpandArguments)
    /// `forms URL ...`.
    case forms(FormsArguments)
    /// `submit URL ...`.
    case submit(SubmitArguments)
    /// `send METHOD URL ...`.
    case send(SendArguments)

    /// The commands, for help and typo hints.
    static let commands = ["get", "items", "links", "expand", "forms", "submit", "send"]

    /// `--timeout`, `--deadline` and `--retries`: every command that sends requests takes them.
    private static let policyOptions = [
        OptionSpec(name: "--timeout", kind: .single),
        OptionSpec(name: "--deadline", kind: .single),
        OptionSpec(name: "--retries", kind: .single),
    ]

    /// TLS, proxy and HTTP version options, as curl spells them: every command that sends
    /// requests takes them.
    private static let transportOptions = [
        OptionSpec(name: "--cacert", kind: .repeatable),
        OptionSpec(name: "--cert", kind: .single),
        OptionSpec(name: "--key", kind: .single),
        OptionSpec(name: "--pass", kind: .single),
        OptionSpec(name: "--pinned-pubkey", kind: .single),
        OptionSpec(name: "--insecure", kind: .flag, aliases: ["-k"]),
        OptionSpec(name: "--proxy", kind: .single, aliases: ["-x"]),
        OptionSpec(name: "--noproxy", kind: .single),
        OptionSpec(name: "--http1.1", kind: .flag),
        OptionSpec(name: "--http2", kind: .flag),
    ]

    /// `-i`/`--show-headers` and `-v`/`--verbose`, as curl spells them: every command that
    /// sends requests takes them.
    private static let outputOptions = [
        OptionSpec(name: "--show-headers", kind: .flag, aliases: ["-i"]),
        OptionSpec(name: "--verbose", kind: .flag, aliases: ["-v"]),
    ]

    /// `--header`, and curl's `-H` for it.
    private static let header = OptionSpec(name: "--header", kind: .repeatable, aliases: ["-H"])
    private static let variable = OptionSpec(name: "--var", kind: .repeatable)
    private static let fixtures = OptionSpec(name: "--fixtures", kind: .single)
    private static let allowOrigin = OptionSpec(name: "--allow-origin", kind: .repeatable)
    /// `--strict`: an include a resource lacks fails the command (``CallOptions/strictIncludes``).
    private static let strict = OptionSpec(name: "--strict", kind: .flag)
    /// What the commands that traverse (`get`, `items`) both take.
    private static let traversalOptions = [
        OptionSpec(name: "--include", kind: .repeatable),
        variable,
        header,
        OptionSpec(name: "--max-concurrency", kind: .single),
        OptionSpec(name: "--prefer-links", kind: .flag),
        allowOrigin,
        OptionSpec(name: "--trace", kind: .flag),
        strict,
        fixtures,
    ]
    /// What the commands that read one document (`links`, `forms`) both take, as their help
    /// says (``HelpText``'s `oneDocumentUsage`).
    private static let oneDocumentOptions = [variable, header, fixtures]
    /// What the commands that act on a resource (`submit`, `send`) both take: the URL's
    /// variables, the headers, and the other origins the headers may go to.
    private static let actionOptions = [variable, header, allowOrigin]
    /// What every command that sends requests takes after its own options.
    private static let requestOptions = policyOptions + transportOptions + outputOptions

    /// Options of each command. `--help` is handled before scanning, so it is not listed.
    static let options: [String: [OptionSpec]] = [
        "get": traversalOptions + [
            OptionSpec(name: "--allow-partial", kind: .flag),
            OptionSpec(name: "--compact", kind: .flag),
        ] + requestOptions,
        "items": [OptionSpec(name: "--limit", kind: .single)] + traversalOptions + requestOptions,
        "links": oneDocumentOptions + requestOptions,
        "expand": [variable],
        "forms": oneDocumentOptions + requestOptions,
        "submit": [
            OptionSpec(name: "--form", kind: .single),
            OptionSpec(name: "--field", kind: .repeatable),
        ] + actionOptions + [fixtures] + requestOptions,
        "send": [
            OptionSpec(name: "--rel", kind: .single),
            OptionSpec(name: "--data", kind: .single),
        ] + actionOptions + requestOptions,
    ]

    /// The request options of a command that sends requests.
    var requestArguments: RequestArguments? {
        switch self {
        case .get(let get): return get.traversal.request
        case .items(let items): return items.traversal.request
        case .links(let links): return links.request
        case .forms(let forms): return forms.request
        case .submit(let submit): return submit.request
        case .send(let send): return send.request
        case .help, .version, .expand: return nil
        }
    }

    /// Interprets the arguments after the program name.
    ///
    /// - Throws: ``ToolError`` with ``ExitCode/usage`` for anything malformed.
    static func parse(_ arguments: [String]) throws(ToolError) -> Invocation {
        guard let first = arguments.first else {
            throw ToolError(
                exitCode: .usage,
                message:
                    "missing command; usage: halley get|items|links|expand|forms|submit|send ... (see 'halley --help')")
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            return .help(command: nil)
        case "--version":
            guard rest.isEmpty else { throw ToolError.usage("--version takes no arguments") }
            return .version
        case "help":
            guard let topic = rest.first else { return .help(command: nil) }
            guard commands.contains(topic), rest.count == 1 else { throw unknownCommand(topic) }
            return .help(command: topic)
        case "get", "items", "links", "expand", "forms", "submit", "send":
            // Help wins over any other mistake on the line, as users reach for it when lost.
            let end = rest.firstIndex(of: "--") ?? rest.endIndex
            if rest[..<end].contains(where: { $0 == "--help" || $0 == "-h" }) {
                return .help(command: first)
            }
            let scanned = try ArgumentScanner(command: first, options: options[first] ?? []).scan(rest)
            switch first {
            case "get": return .get(try GetArguments(scanned))
            case "items": return .items(try ItemsArguments(scanned))
            case "links": return .links(try LinksArguments(scanned))
            case "forms": return .forms(try FormsArguments(scanned))
            case "submit": return .submit(try SubmitArguments(scanned))
            case "send": return .send(try SendArguments(scanned))
            default: return .expand(try ExpandArguments(scanned))
            }
        default:
            if first.hasPrefix("-") {
                let hint =
                    Suggestion.closest(to: first, among: ["--help", "--version"]).map { "; did you mean \($0)?" } ?? ""
                throw ToolError.usage("unknown option \(first) before the command\(hint)")
            }
            throw unknownCommand(first)
        }
    }

    private static func unknownCommand(_ name: String) -> ToolError {
        var hint = Suggestion.closest(to: name, among: commands).map { "; did you mean '\($0)'?" } ?? ""
        var isDirectory: ObjCBool = false
        if hint.isEmpty, FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory), !isDirectory.boolValue
        {
            // The interim tool took a file; show how `get` reads one (the host is ignored).
            let file = URL(fileURLWithPath: name)
            let directory = (name as NSString).deletingLastPathComponent
            hint =
                "; to read a local document: halley get --fixtures \(directory.isEmpty ? "." : directory) "
                + "https://local/\(file.lastPathComponent)"
        }
        return ToolError.usage("unknown command '\(name)'\(hint)")
    }
}

/// The options the fetching commands (`get`, `links`, `forms`, `submit`) share: where to
/// fetch from and what to send.
struct RequestArguments {
    /// The root URL or URI template, as given.
    let target: String
    /// `--var` values, for a templated root and every templated link followed.
    let variables: [String: TemplateValue]
    /// `--header` fields, in order.
    let headers: HeaderFields
    /// `--allow-origin` origins, trusted with the headers besides the root's origin.
    let allowedOrigins: Set<Origin>
    /// `--fixtures` directory, answering instead of the network.
    let fixtures: URL?
    /// `--timeout`, `--deadline` and `--retries`.
    let policy: PolicyArguments
    /// TLS, proxy and HTTP version.
    let transport: TransportArguments
    /// `-i`/`--show-headers`: each response's status and header fields on stderr.
    let showHeaders: Bool
    /// `-v`/`--verbose`: a trace line per request with its connection, protocols and timings.
    let verbose: Bool

    /// Reads the shared options of `command` and its single operand.
    init(_ scanned: ScannedArguments, command: String, operandName: String) throws(ToolError) {
        guard scanned.operands.count == 1, let target = scanned.operands.first else {
            let problem =
                scanned.operands.isEmpty
                ? "missing \(operandName)"
                : "expected one \(operandName), got \(scanned.operands.count): \(scanned.operands.joined(separator: " "))"
            throw ToolError.usage(problem, command: command)
        }
        self.target = target
        variables = try ValueParser.variables(scanned.all("--var"), command: command)
        headers = try ValueParser.headers(scanned.all("--header"), command: command)
        var origins = Set<Origin>()
        for text in scanned.all("--allow-origin") {
            origins.insert(try ValueParser.origin(text, command: command))
        }
        allowedOrigins = origins
        fixtures = try scanned.value("--fixtures").map { (path: String) throws(ToolError) -> URL in
            try ValueParser.directory(path, command: command)
        }
        policy = try PolicyArguments(scanned, command: command)
        transport = try TransportArguments(scanned, command: command)
        showHeaders = scanned.has("--show-headers")
        verbose = scanned.has("--verbose")
        if fixtures != nil, let given = transport.givenOptions.first {
            throw ToolError.usage("\(given) has no effect with --fixtures, which sends no request", command: command)
        }
    }
}

/// `--cacert`, `--cert`, `--key`, `--pass`, `--pinned-pubkey`, `--insecure`, `--proxy`,
/// `--noproxy`, `--http1.1` and `--http2`, as curl reads them, mapped onto the library's
/// ``TLSConfiguration`` and ``ProxyConfiguration``. Every file is read and checked here, so
/// a missing or malformed one is a usage error naming it before anything is sent.
struct TransportArguments {
    /// Trust roots, client identity, pins, and `--insecure`.
    let tls: TLSConfiguration
    /// `--proxy` and `--noproxy`, else the environment's variables.
    let proxy: ProxyConfiguration
    /// `--http1.1` or `--http2`; `.automatic` without either.
    let httpVersion: CurlRequester.HTTPVersion
    /// `--insecure`: warned about on every run.
    let insecure: Bool
    /// The options given, for "has no effect with --fixtures".
    let givenOptions: [String]

    /// The options that take a value or are flags, in the order the help lists them.
    private static let names = [
        "--cacert", "--cert", "--key", "--pass", "--pinned-pubkey", "--insecure", "--proxy", "--noproxy", "--http1.1",
        "--http2",
    ]

    init(_ scanned: ScannedArguments, command: String) throws(ToolError) {
        givenOptions = Self.names.filter { scanned.has($0) || scanned.values[$0] != nil }
        var tls = TLSConfiguration()
        let cacerts = scanned.all("--cacert")
        if !cacerts.isEmpty { tls.trustRoots = .systemAnd(cacerts.map { .file($0) }) }
        let certificate = scanned.value("--cert")
        let key = scanned.value("--key")
        let passphrase = scanned.value("--pass")
        if let certificate {
            tls.clientIdentity = .init(
                certificate: .file(certificate), key: key.map { .file($0) }, passphrase: passphrase)
        } else if key != nil || passphrase != nil {
            throw ToolError.usage("\(key != nil ? "--key" : "--pass") needs --cert", command: command)
        }
        if let pins = scanned.value("--pinned-pubkey") {
            var keys: [TLSConfiguration.PinnedKey] = []
            for pin in pins.split(separator: ";", omittingEmptySubsequences: false) {
                guard pin.hasPrefix("sha256//"), let key = try? TLSConfiguration.PinnedKey(String(pin)) else {
                    throw ToolError.usage(
                        "--pinned-pubkey \"\(pin)\" is not sha256//<base64 of the key's SHA-256> "
                            + "(several are separated by ';')", command: command)
                }
                keys.append(key)
            }
            tls.pinnedKeys = keys
        }
        insecure = scanned.has("--insecure")
        if insecure { tls = tls.dangerouslyTrustingAnyCertificate() }
        do {
            try tls.validate()
        } catch {
            throw ToolError.usage(error.description, command: command)
        }
        self.tls = tls

        let environment = ProcessInfo.processInfo.environment
        let noProxy = scanned.value("--noproxy")
        if let text = scanned.value("--proxy") {
            let probe = URL(string: "http://example.invalid/")!
            guard let url = URL(string: text.contains("://") ? text : "http://" + text),
                (try? ProxyConfiguration(url: url).proxy(for: probe)) != nil
            else {
                // Whatever precedes an `@` may be a password.
                let shown = text.lastIndex(of: "@").map { "…" + text[$0...] } ?? text
                throw ToolError.usage(
                    "--proxy \"\(shown)\" is not a proxy URL such as http://proxy.example.com:3128", command: command)
            }
            // As curl: without --noproxy, the environment's NO_PROXY still applies.
            let exceptions = noProxy ?? environment["no_proxy"] ?? environment["NO_PROXY"]
            self.proxy = ProxyConfiguration(url: url, noProxy: exceptions.map { [$0] } ?? [])
        } else if let noProxy {
            var variables = environment
            variables["NO_PROXY"] = nil
            variables["no_proxy"] = noProxy
            self.proxy = .environment(variables)
        } else {
            self.proxy = .environment
        }

        switch (scanned.has("--http1.1"), scanned.has("--http2")) {
        case (true, true): throw ToolError.usage("--http1.1 and --http2 exclude each other", command: command)
        case (true, false): httpVersion = .http1Only
        case (false, true): httpVersion = .http2
        case (false, false): httpVersion = .automatic
        }
    }
}

/// How long requests may take and how often they are tried: `--timeout`, `--deadline`,
/// `--retries`, mapped onto the library's request policy by ``Session``.
struct PolicyArguments {
    /// `--timeout SECONDS`: one attempt's limit (``RequestPolicy/requestTimeout``).
    let timeout: Duration?
    /// `--deadline SECONDS`: the whole command's limit, every request and retry included.
    let deadline: Duration?
    /// `--retries N`: attempts after the first (``RetryPolicy/maxAttempts`` is N + 1).
    let retries: Int?

    /// The longest `--timeout` or `--deadline`: a day. Longer is a typo (milliseconds for
    /// seconds), not a plan.
    static let maximumSeconds = 86_400.0
    /// The most `--retries`.
    static let maximumRetries = 100

    /// Reads the options; every bad value is a usage error naming it.
    init(_ scanned: ScannedArguments, command: String) throws(ToolError) {
        timeout = try scanned.value("--timeout").map { (text: String) throws(ToolError) -> Duration in
            try ValueParser.seconds(text, option: "--timeout", command: command)
        }
        deadline = try scanned.value("--deadline").map { (text: String) throws(ToolError) -> Duration in
            try ValueParser.seconds(text, option: "--deadline", command: command)
        }
        retries = try scanned.value("--retries").map { (text: String) throws(ToolError) -> Int in
            guard let value = Int(text), (0...Self.maximumRetries).contains(value) else {
                throw ToolError.usage(
                    "--retries \"\(text)\" is not a whole number from 0 to \(Self.maximumRetries)", command: command)
            }
            return value
        }
    }
}

/// The options `get` and `items` share: both run an include traversal from a root, so both
/// read the same flags the same way, and a new traversal flag is added once for both.
struct TraversalArguments {
    /// Where to fetch from (the first page, for `items`) and what to send.
    let request: RequestArguments
    /// `--include` paths, in order (checked by the library, which reports offsets); `items`
    /// applies them to every item.
    let includes: [String]
    /// `--max-concurrency`; the library default when `nil`.
    let maxConcurrency: Int?
    /// `--prefer-links`: follow links even when the relation is embedded.
    let preferLinks: Bool
    /// `--trace`: request lines and a waterfall on stderr.
    let trace: Bool
    /// `--strict`: an include a resource lacks fails the command.
    let strict: Bool

    /// Checks the traversal options of `command`, after its `request` options (so that the
    /// first mistake on a command line is the one reported, in the order the command checks
    /// them); include paths are left to the library.
    init(request: RequestArguments, _ scanned: ScannedArguments, command: String) throws(ToolError) {
        self.request = request
        includes = scanned.all("--include")
        maxConcurrency = try scanned.value("--max-concurrency").map { (text: String) throws(ToolError) -> Int in
            try ValueParser.positiveInteger(text, option: "--max-concurrency", command: command)
        }
        preferLinks = scanned.has("--prefer-links")
        trace = scanned.has("--trace")
        strict = scanned.has("--strict")
    }

    /// The include paths as the library takes them.
    var libraryIncludes: [Include] { includes.map { Include($0) } }

    /// The reporter of the command's events and the session whose calls feed it.
    ///
    /// - Throws: What ``Session/init(_:maxConcurrency:preference:observer:acceptsForms:strictIncludes:)``
    ///   throws for a bad root.
    func start(console: Console) throws -> (reporter: TraversalReporter, session: Session) {
        let reporter = TraversalReporter(request, tracing: trace, console: console)
        let session = try Session(
            request, maxConcurrency: maxConcurrency, preference: preferLinks ? .links : .embedded,
            observer: reporter.observe, strictIncludes: strict)
        return (reporter, session)
    }
}

/// `halley get`.
struct GetArguments {
    /// The root, the includes and how to follow them.
    let traversal: TraversalArguments
    /// `--allow-partial`: keep what succeeded, list what failed.
    let allowPartial: Bool
    /// `--compact`: one line of JSON.
    let compact: Bool

    /// Checks `get`'s options; include paths are left to the library, which names offsets.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        let request = try RequestArguments(scanned, command: "get", operandName: "URL or URI template")
        traversal = try TraversalArguments(request: request, scanned, command: "get")
        allowPartial = scanned.has("--allow-partial")
        compact = scanned.has("--compact")
    }
}

/// `halley items`.
struct ItemsArguments {
    /// The first page, the includes applied to every item and how to follow them.
    let traversal: TraversalArguments
    /// `--limit`: the most items printed; every item when `nil`.
    let limit: Int?

    /// Checks `items`'s options; include paths are left to the library.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        let request = try RequestArguments(scanned, command: "items", operandName: "URL")
        // --limit before the traversal options: of two mistakes, the one named comes first here.
        limit = try scanned.value("--limit").map { (text: String) throws(ToolError) -> Int in
            try ValueParser.positiveInteger(text, option: "--limit", command: "items")
        }
        traversal = try TraversalArguments(request: request, scanned, command: "items")
    }
}

/// `halley links`.
struct LinksArguments {
    /// Where to fetch from and what to send.
    let request: RequestArguments

    /// Checks `links`'s options.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        request = try RequestArguments(scanned, command: "links", operandName: "URL")
    }
}

/// `halley forms`.
struct FormsArguments {
    /// Where to fetch from and what to send.
    let request: RequestArguments

    /// Checks `forms`'s options.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        request = try RequestArguments(scanned, command: "forms", operandName: "URL")
    }
}

/// `halley submit`.
struct SubmitArguments {
    /// Where to fetch the resource from and what to send.
    let request: RequestArguments
    /// `--form`: the template's key, `default` unless given.
    let form: String
    /// `--field NAME=VALUE` pairs, in order; a repeated name makes a list.
    let fields: [(name: String, value: String)]

    /// Checks `submit`'s options; the values are checked against the template later.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        request = try RequestArguments(scanned, command: "submit", operandName: "URL")
        form = scanned.value("--form") ?? "default"
        guard !form.isEmpty else { throw ToolError.usage("--form needs a template key", command: "submit") }
        var fields: [(name: String, value: String)] = []
        for pair in scanned.all("--field") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ToolError.usage("--field \"\(pair)\" is not NAME=VALUE", command: "submit")
            }
            fields.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        self.fields = fields
    }
}

/// `halley send`.
struct SendArguments {
    /// Where to send (or, with `--rel`, the resource whose link says where) and what headers.
    let request: RequestArguments
    /// The method, uppercased when it is one of the common ones.
    let method: RequestMethod
    /// `--rel`: send to the target of this relation of the resource at the URL.
    let rel: LinkRelation?
    /// `--data`: the JSON body as given (checked to be JSON), or `nil` for none.
    let data: Data?

    /// The largest `--data @FILE` read: 16 MiB, the library's default body limit.
    static let maximumDataBytes = 16 * 1024 * 1024

    /// Checks `send`'s operands and options; `--data` must be JSON, `@FILE` a readable file.
    init(_ scanned: ScannedArguments) throws(ToolError) {
        guard let first = scanned.operands.first else {
            throw ToolError.usage("missing METHOD and URL", command: "send")
        }
        method = try ValueParser.method(first, command: "send")
        var rest = scanned
        rest.operands.removeFirst()
        request = try RequestArguments(rest, command: "send", operandName: "URL")
        rel = try scanned.value("--rel").map { (text: String) throws(ToolError) -> LinkRelation in
            guard !text.isEmpty, !text.contains(where: \.isWhitespace) else {
                throw ToolError.usage("--rel \"\(text)\" is not a link relation", command: "send")
            }
            return LinkRelation(text)
        }
        data = try scanned.value("--data").map { (text: String) throws(ToolError) -> Data in
            try ValueParser.jsonData(text, command: "send")
        }
    }
}

/// `halley expand`.
struct ExpandArguments {
    /// The template text.
    let template: String
    /// `--var` values.
    let variables: [String: TemplateValue]

    /// Checks `expand`'s template operand and variables (the template itself is checked
    /// when it is expanded, to report the library's offset).
    init(_ scanned: ScannedArguments) throws(ToolError) {
        guard scanned.operands.count == 1, let template = scanned.operands.first else {
            let problem =
                scanned.operands.isEmpty ? "missing TEMPLATE" : "expected one TEMPLATE, got \(scanned.operands.count)"
            throw ToolError.usage(problem, command: "expand")
        }
        self.template = template
        variables = try ValueParser.variables(scanned.all("--var"), command: "expand")
    }
}

/// Checks and converts option values; every failure is a usage error naming the value.
enum ValueParser {
    /// `NAME=VALUE` pairs as string variables. A later pair for the same name wins, so a
    /// script can override a default. No implicit lists: `ids=1,2` is the string `"1,2"`.
    static func variables(_ pairs: [String], command: String) throws(ToolError) -> [String: TemplateValue] {
        var variables: [String: TemplateValue] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "=") else {
                throw ToolError.usage("--var \"\(pair)\" is not NAME=VALUE", command: command)
            }
            let name = String(pair[..<equals])
            guard isVariableName(name) else {
                throw ToolError.usage(
                    "--var \"\(pair)\": \"\(name)\" is not a URI template variable name "
                        + "(letters, digits, _, . and %XX)", command: command)
            }
            variables[name] = .string(String(pair[pair.index(after: equals)...]))
        }
        return variables
    }

    /// RFC 6570 section 2.3 `varname`, loosely: non-empty, made of `ALPHA / DIGIT / _ / . /
    /// %`. A name outside that set could never match a template variable, so it is a typo.
    private static func isVariableName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_.%".unicodeScalars.contains(scalar))
            }
    }

    /// `Name: Value` header fields. A later field with the same name replaces the earlier.
    static func headers(_ fields: [String], command: String) throws(ToolError) -> HeaderFields {
        var headers = HeaderFields()
        for field in fields {
            guard let colon = field.firstIndex(of: ":") else {
                throw ToolError.usage("--header \"\(field)\" is not \"Name: Value\"", command: command)
            }
            let name = String(field[..<colon])
            let value = field[field.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard isToken(name) else {
                throw ToolError.usage("--header \"\(field)\": \"\(name)\" is not a header name", command: command)
            }
            // CR or LF would let a value smuggle in more header fields; refuse all controls.
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
                throw ToolError.usage("--header \(name): the value holds a control character", command: command)
            }
            headers[name] = value
        }
        return headers
    }

    /// RFC 9110 section 5.6.2 `token`: the characters a header name or a method may use.
    private static func isToken(_ name: String) -> Bool {
        let punctuation = "!#$%&'*+-.^_`|~".unicodeScalars
        return !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || punctuation.contains(scalar))
            }
    }

    /// `scheme://host[:port]`, nothing more: a path or query means the user meant a URL,
    /// and trusting "an origin" they did not write would be surprising.
    static func origin(_ text: String, command: String) throws(ToolError) -> Origin {
        guard let components = URLComponents(string: text), let scheme = components.scheme, !scheme.isEmpty,
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            let origin = Origin(text)
        else {
            throw ToolError.usage(
                "--allow-origin \"\(text)\" is not an origin like https://api.example.com:8443",
                command: command)
        }
        return origin
    }

    /// A number of seconds above 0 and at most a day, such as `10`, `0.5` or `2.25`, as a
    /// duration in whole milliseconds (at least 1 ms).
    static func seconds(_ text: String, option: String, command: String) throws(ToolError) -> Duration {
        // Plain decimals only: `Double` would also take "nan", "inf", "0x1p3" and "1e3".
        let isDecimal =
            !text.isEmpty && text.allSatisfy { $0 == "." || ("0"..."9").contains($0) }
            && text.filter({ $0 == "." }).count <= 1 && text != "."
        guard isDecimal, let seconds = Double(text), seconds > 0, seconds <= PolicyArguments.maximumSeconds else {
            throw ToolError.usage(
                "\(option) \"\(text)\" is not a number of seconds above 0 and at most "
                    + "\(Int(PolicyArguments.maximumSeconds)) (e.g. 10 or 0.5)", command: command)
        }
        return .milliseconds(max(1, Int64((seconds * 1000).rounded())))
    }

    /// An HTTP method token (RFC 9110, 9.1); the common methods in any case are uppercased.
    static func method(_ text: String, command: String) throws(ToolError) -> RequestMethod {
        let common: [RequestMethod] = [.get, .head, .post, .put, .patch, .delete, .options]
        if let known = common.first(where: { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }) {
            return known
        }
        guard isToken(text) else {
            throw ToolError.usage("\"\(text)\" is not an HTTP method (e.g. POST, PUT, PATCH, DELETE)", command: command)
        }
        return RequestMethod(rawValue: text)
    }

    /// `--data`: JSON text, or `@FILE` holding JSON. The bytes are sent as given.
    static func jsonData(_ text: String, command: String) throws(ToolError) -> Data {
        let data: Data
        let source: String
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            source = "--data @\(path)"
            data = try file(path, option: source, command: command)
        } else {
            source = "--data"
            data = Data(text.utf8)
        }
        do {
            _ = try JSONValue(parsing: data)
        } catch {
            throw ToolError.usage("\(source) is not JSON: \(error)", command: command)
        }
        return data
    }

    /// The contents of a regular file of at most ``SendArguments/maximumDataBytes``.
    private static func file(_ path: String, option: String, command: String) throws(ToolError) -> Data {
        var isDirectory: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError.usage("\(option): no such file", command: command)
        }
        guard !isDirectory.boolValue else { throw ToolError.usage("\(option) is a directory", command: command) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= SendArguments.maximumDataBytes else {
            throw ToolError.usage(
                "\(option) is larger than \(SendArguments.maximumDataBytes) bytes", command: command)
        }
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            // Read one byte past the limit: a file that grew since it was measured is refused too.
            let data = try handle.read(upToCount: SendArguments.maximumDataBytes + 1) ?? Data()
            guard data.count <= SendArguments.maximumDataBytes else {
                throw ToolError.usage(
                    "\(option) is larger than \(SendArguments.maximumDataBytes) bytes", command: command)
            }
            return data
        } catch let error as ToolError {
            throw error
        } catch {
            throw ToolError.usage("\(option) cannot be read: \(error.localizedDescription)", command: command)
        }
    }

    /// A decimal integer of at least 1.
    static func positiveInteger(_ text: String, option: String, command: String) throws(ToolError) -> Int {
        guard let value = Int(text), value >= 1 else {
            throw ToolError.usage("\(option) \"\(text)\" is not a positive integer", command: command)
        }
        return value
    }

    /// An existing directory, relative to the working directory.
    static func directory(_ path: String, command: String) throws(ToolError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolError.usage("--fixtures \"\(path)\" is not a directory", command: command)
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }
}
