import SwiftDiagnostics
import SwiftIfConfig
import SwiftParser
import SwiftSyntax

/// One problem an Apple build would have: `path:line: platform: what (why)`.
public struct Finding: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file, relative to the package root.
    public let path: String
    /// The line, from 1.
    public let line: Int
    /// The platform whose build fails there (`macOS`, ...), or `all`.
    public let platform: String
    /// What fails.
    public let what: String
    /// Why.
    public let why: String

    /// The line the tool prints.
    public var description: String { "\(path):\(line): \(platform): \(what) (\(why))" }

    /// By path, line, platform, then message.
    public static func < (lhs: Finding, rhs: Finding) -> Bool {
        (lhs.path, lhs.line, platformRank(lhs.platform), lhs.what)
            < (rhs.path, rhs.line, platformRank(rhs.platform), rhs.what)
    }

    private static func platformRank(_ name: String) -> Int {
        Platform(rawValue: name).flatMap { Platform.allCases.firstIndex(of: $0) } ?? -1
    }
}

/// A parsed source file.
public struct SourceFile: Sendable {
    /// The path, relative to the package root.
    public let path: String
    /// Its syntax tree.
    public let tree: SourceFileSyntax
    /// Positions to lines.
    public let converter: SourceLocationConverter

    /// Parses `text`, the contents of `path`.
    public init(path: String, text: String) {
        self.path = path
        self.tree = Parser.parse(source: text)
        self.converter = SourceLocationConverter(fileName: path, tree: tree)
    }

    /// The line `node` starts on (past its leading trivia).
    func line(of node: some SyntaxProtocol) -> Int {
        converter.location(for: node.positionAfterSkippingLeadingTrivia).line
    }
}

/// A version as people write it: `14`, `15.4`, never `14.0`.
public func versionText(_ version: VersionTuple) -> String {
    var components = version.components
    while components.count > 1, components.last == 0 { components.removeLast() }
    return components.map(String.init).joined(separator: ".")
}

/// Module names that may qualify a name (`Swift.Int128`, `Glibc.environ`).
private let moduleNames: Set<String> = [
    "Swift", "Foundation", "Darwin", "Glibc", "Musl", "Synchronization", "Observation", "_Concurrency",
    "FoundationNetworking", "FoundationEssentials", "FoundationXML", "SwiftGlibc",
]

/// A declaration of the package's own that needs more than the deployment target on one
/// platform: every use outside a covering `@available` or `#available` is a finding, as the
/// compiler would have it.
struct LearnedRestriction {
    /// The version the declaration needs (``never`` for one unavailable on the platform).
    let version: VersionTuple
    /// Where it is declared, and why it needs it.
    let reason: String
    /// Whether it is `@available(<platform>, unavailable)`: only code unavailable there too
    /// (or left out by a `#if`) may use it.
    var unavailable = false

    /// A version no `#available` names: only an unavailable context covers it.
    static let never = VersionTuple(1_000_000)
}

/// What pass one learns of the sources for one platform: the names of the package's own
/// declarations, and those of them that need more than the deployment target.
struct Declarations {
    /// Every name the package declares: a table rule of the same name is shadowed.
    var names: Set<String> = []
    /// For each name, what its declarations need (`nil` for one that needs nothing more).
    var restrictions: [String: [LearnedRestriction?]] = [:]
    /// The types whose own attributes or conformances need a version (an `@Observable` class
    /// needs Observation), by syntax node.
    var impliedAvailability: [SyntaxIdentifier: VersionTuple] = [:]

    /// Adds what `other` (another file's) holds.
    mutating func merge(_ other: Declarations) {
        names.formUnion(other.names)
        restrictions.merge(other.restrictions) { $0 + $1 }
        impliedAvailability.merge(other.impliedAvailability) { $1 }
    }

    /// The names every declaration of which needs more than the deployment target.
    var learned: [String: LearnedRestriction] {
        restrictions.compactMapValues { restrictions in
            let known = restrictions.compactMap { $0 }
            guard known.count == restrictions.count, let first = known.min(by: { $0.version < $1.version }) else {
                return nil
            }
            return first
        }
    }
}

/// The versions the table's rules need on `platform` for the type names in `node` (a type's
/// attributes and inheritance clause).
private func tableVersion(of node: some SyntaxProtocol, on platform: Platform) -> VersionTuple? {
    let visitor = TypeNames(viewMode: .sourceAccurate)
    visitor.walk(node)
    return visitor.names.compactMap { name -> VersionTuple? in
        for rule in apiRules {
            if case .name(name) = rule.pattern, case .introduced(let versions) = rule.limit {
                return versions[platform]
            }
        }
        return nil
    }.max()
}

/// The type names in a subtree.
private final class TypeNames: SyntaxVisitor {
    var names: [String] = []

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        names.append(node.name.text)
        return .visitChildren
    }
}

/// Pass one: the package's declarations active on one platform, and what each needs.
final class DeclarationCollector: ActiveSyntaxVisitor {
    let platform: Platform
    let target: VersionTuple
    let file: SourceFile
    var declarations = Declarations()

    init(platform: Platform, target: VersionTuple, file: SourceFile) {
        self.platform = platform
        self.target = target
        self.file = file
        super.init(viewMode: .sourceAccurate, configuration: ViewConfiguration(platform))
    }

    /// Records a declaration named `name` at `node`; `implied` is what its own attributes
    /// or conformances need (an `@Observable` type's Observation).
    private func record(_ name: String, at node: some SyntaxProtocol, implied: VersionTuple? = nil) {
        declarations.names.insert(name)
        var needed: VersionTuple?
        var how = ""
        var current: Syntax? = Syntax(node)
        // The declaration's own attributes: those of the node, or of the `var` or `let` around
        // a pattern.
        var own = true
        while let syntax = current {
            if let declaration = syntax.asProtocol(WithAttributesSyntax.self) {
                defer { own = false }
                switch declaredAvailability(declaration.attributes, for: platform) {
                case .unavailable where own:
                    // Halley's own `@available(iOS, unavailable)` (CurlRequester, StubServer on
                    // watchOS): the compiler rejects every use outside an unavailable context.
                    // (Members and locals of an unavailable declaration are not restricted by
                    // name: others elsewhere may share it, as `accept` shares the C call's.)
                    declarations.restrictions[name, default: []].append(
                        LearnedRestriction(
                            version: LearnedRestriction.never,
                            reason: "\(name) is declared unavailable on \(platform.rawValue) at "
                                + "\(file.path):\(file.line(of: syntax))", unavailable: true))
                    return
                case .unavailable: return
                case .introduced(let version) where version > (needed ?? target):
                    needed = version
                    how = "\(name) is declared @available at \(file.path):\(file.line(of: syntax))"
                default: break
                }
            }
            current = syntax.parent
        }
        if let implied, implied > (needed ?? target) {
            needed = implied
            how = "\(name)'s attributes or conformances need it, at \(file.path):\(file.line(of: node))"
            declarations.impliedAvailability[node.id] = implied
        }
        declarations.restrictions[name, default: []].append(
            needed.map { LearnedRestriction(version: $0, reason: how) })
    }

    /// A type's implied version: what its attributes and inheritance clause need.
    private func implied(_ attributes: AttributeListSyntax, _ inheritance: InheritanceClauseSyntax?) -> VersionTuple? {
        [tableVersion(of: attributes, on: platform), inheritance.flatMap { tableVersion(of: $0, on: platform) }]
            .compactMap { $0 }.max()
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node, implied: implied(node.attributes, node.inheritanceClause))
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node, implied: implied(node.attributes, node.inheritanceClause))
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node, implied: implied(node.attributes, node.inheritanceClause))
        return .visitChildren
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node, implied: implied(node.attributes, node.inheritanceClause))
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node, implied: implied(node.attributes, node.inheritanceClause))
        return .visitChildren
    }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
        record(node.identifier.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        record((node.secondName ?? node.firstName).text, at: node)
        return .visitChildren
    }

    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
        record(node.name.text, at: node)
        return .visitChildren
    }

    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
        record((node.secondName ?? node.firstName).text, at: node)
        return .visitChildren
    }
}

/// Pass two: every use, in code active on one platform, of an API the platform limits.
/// Also notes the lines that code is on.
final class UseChecker: ActiveSyntaxVisitor {
    let platform: Platform
    let target: VersionTuple?
    let file: SourceFile
    let declarations: Declarations
    let learned: [String: LearnedRestriction]
    var findings: [Finding] = []
    var activeLines: Set<Int> = []
    let checks: Bool
    let shipsInApps: Bool

    /// A checker of `file` for `platform`, given what pass one found (`learned` is
    /// `declarations.learned`, worked out once); with `checks: false` it only notes lines.
    init(
        platform: Platform, target: VersionTuple?, file: SourceFile, declarations: Declarations,
        learned: [String: LearnedRestriction], checks: Bool = true, shipsInApps: Bool = false
    ) {
        self.shipsInApps = shipsInApps
        self.platform = platform
        self.target = target
        self.file = file
        self.declarations = declarations
        self.learned = learned
        self.checks = checks
        super.init(viewMode: .sourceAccurate, configuration: ViewConfiguration(platform))
    }

    override func visit(_ token: TokenSyntax) -> SyntaxVisitorContinueKind {
        if token.presence == .present, token.tokenKind != .endOfFile {
            activeLines.insert(file.line(of: token))
        }
        return .visitChildren
    }

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        if let module = node.path.first?.name.text {
            checkModule(module, at: node, imported: true)
        }
        return .visitChildren
    }

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        if let member = node.parent?.as(MemberTypeSyntax.self), member.baseType.id == node.id,
            moduleNames.contains(name)
        {
            checkModule(name, at: node, imported: false)
        } else {
            // An attribute names its macro or wrapper: `@Observable`.
            checkName(name, at: node, shown: node.parent?.is(AttributeSyntax.self) == true ? "@\(name)" : name)
        }
        return .visitChildren
    }

    override func visit(_ node: MemberTypeSyntax) -> SyntaxVisitorContinueKind {
        if let base = node.baseType.as(IdentifierTypeSyntax.self), moduleNames.contains(base.name.text) {
            checkName(node.name.text, at: node)
        } else {
            checkLearned(node.name.text, at: node)
        }
        return .visitChildren
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        let name = node.baseName.text
        if let access = node.parent?.as(MemberAccessExprSyntax.self) {
            if access.declName.id == node.id {
                if let base = access.base?.as(DeclReferenceExprSyntax.self) {
                    if moduleNames.contains(base.baseName.text) {
                        checkName(name, at: node)
                        return .visitChildren
                    }
                    if name == "rawValue" { checkRawValue(of: base.baseName.text, at: access) }
                }
                checkMember(name, at: node)
                return .visitChildren
            }
            if access.base?.id == node.id, moduleNames.contains(name) {
                checkModule(name, at: node, imported: false)
                return .visitChildren
            }
        }
        checkName(name, at: node)
        return .visitChildren
    }

    // MARK: Rules

    private func checkName(_ name: String, at node: some SyntaxProtocol, shown: String? = nil) {
        guard checks else { return }
        if !declarations.names.contains(name) {
            for rule in apiRules where rule.pattern == .name(name) {
                apply(rule, at: node, what: shown ?? name)
            }
        }
        checkLearned(name, at: node)
    }

    private func checkMember(_ name: String, at node: some SyntaxProtocol) {
        guard checks else { return }
        for rule in apiRules where rule.pattern == .member(name) {
            apply(rule, at: node, what: name)
        }
        checkLearned(name, at: node)
    }

    private func checkRawValue(of name: String, at node: some SyntaxProtocol) {
        guard checks else { return }
        for rule in apiRules where rule.pattern == .rawValue(of: name) {
            apply(rule, at: node, what: "\(name).rawValue")
        }
    }

    private func checkModule(_ name: String, at node: some SyntaxProtocol, imported: Bool) {
        guard checks else { return }
        for rule in apiRules where rule.pattern == .module(name) {
            apply(rule, at: node, what: imported ? "import \(name)" : "\(name). qualifies a name")
        }
    }

    /// A use of the package's own declaration that needs more than the deployment target.
    private func checkLearned(_ name: String, at node: some SyntaxProtocol) {
        guard checks, let target, let restriction = learned[name] else { return }
        guard !isCovered(node, needs: restriction.version, on: platform, impliedAvailability: implied) else { return }
        if restriction.unavailable {
            findings.append(
                Finding(
                    path: file.path, line: file.line(of: node), platform: platform.rawValue,
                    what: "\(name) does not compile on \(platform.rawValue)",
                    why: "\(restriction.reason); no enclosing declaration is unavailable there"))
            return
        }
        findings.append(
            Finding(
                path: file.path, line: file.line(of: node), platform: platform.rawValue,
                what: needs(name, restriction.version, above: target),
                why: "\(restriction.reason); no @available or #available covers this use"))
    }

    /// `Int128 needs macOS 15, above the target 14`.
    private func needs(_ what: String, _ version: VersionTuple, above target: VersionTuple) -> String {
        "\(what) needs \(platform.rawValue) \(versionText(version)), above the target \(versionText(target))"
    }

    private func implied(_ syntax: Syntax) -> VersionTuple? {
        declarations.impliedAvailability[syntax.id]
    }

    private func apply(_ rule: APIRule, at node: some SyntaxProtocol, what: String) {
        switch rule.limit {
        case .introduced(let versions):
            guard let target, let needed = versions[platform], needed > target,
                !isCovered(node, needs: needed, on: platform, impliedAvailability: implied)
            else { return }
            findings.append(
                Finding(
                    path: file.path, line: file.line(of: node), platform: platform.rawValue,
                    what: needs(what, needed, above: target),
                    why: "\(rule.why); no @available or #available covers this use"))
        case .absent(let platforms):
            guard platforms.contains(platform) else { return }
            let verb = what.hasPrefix("import ") || what.hasSuffix(" qualifies a name") ? "fails" : "does not compile"
            findings.append(
                Finding(
                    path: file.path, line: file.line(of: node), platform: platform.rawValue,
                    what: "\(what) \(verb) on \(platform.rawValue)", why: rule.why))
        case .needsReason(let category):
            guard shipsInApps else { return }
            findings.append(
                Finding(
                    path: file.path, line: file.line(of: node), platform: platform.rawValue,
                    what: "\(what) is one of Apple's required-reason APIs, for \(rule.why) (\(category))",
                    why: "apps shipping it need a privacy manifest that declares why; README says none is needed"))
        }
    }

    /// What SwiftIfConfig could not evaluate (an unknown `canImport`, a malformed `#if`).
    var diagnosticFindings: [Finding] {
        diagnostics.filter { $0.diagMessage.severity == .error || $0.diagMessage.severity == .warning }.map {
            Finding(
                path: file.path, line: $0.location(converter: file.converter).line, platform: platform.rawValue,
                what: "#if cannot be read: \($0.message)", why: "the Apple view evaluates every #if it reaches")
        }
    }
}
