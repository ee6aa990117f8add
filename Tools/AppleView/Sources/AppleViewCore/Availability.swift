import SwiftIfConfig
import SwiftSyntax

/// What an `@available` attribute or an `#available` condition says about one platform.
enum AvailabilitySpec: Equatable {
    /// Available from this version on.
    case introduced(VersionTuple)
    /// Not available there at all (`@available(iOS, unavailable)`).
    case unavailable
    /// Silent about the platform (`@available(macOS 15, *)` says nothing of iOS).
    case unmentioned

    /// What `arguments` (of `@available(...)`, `#available(...)` or `#unavailable(...)`)
    /// say about `platform`.
    ///
    /// Both forms: the short `macOS 15, iOS 18, *` and the long `macOS, introduced: 15` or
    /// `*, unavailable`.
    init(_ arguments: AvailabilityArgumentListSyntax, for platform: Platform) {
        var tokens: [String] = []
        var introduced: VersionTuple?
        var isShortForm = false
        for argument in arguments {
            switch argument.argument {
            case .availabilityVersionRestriction(let restriction):
                isShortForm = true
                if restriction.platform.text == platform.rawValue, let version = restriction.version {
                    introduced = VersionTuple(parsing: version.trimmedDescription)
                }
            case .token(let token):
                tokens.append(token.text)
            case .availabilityLabeledArgument(let labeled):
                if labeled.label.text == "introduced", case .version(let version) = labeled.value {
                    introduced = VersionTuple(parsing: version.trimmedDescription)
                }
            }
        }
        if isShortForm {
            self = introduced.map { .introduced($0) } ?? .unmentioned
            return
        }
        // The long form names one platform (or `*`) first.
        guard let named = tokens.first, named == platform.rawValue || named == "*" else {
            self = .unmentioned
            return
        }
        if tokens.contains("unavailable") {
            self = .unavailable
        } else if let introduced, named != "*" {
            self = .introduced(introduced)
        } else {
            self = .unmentioned
        }
    }

    /// Whether code under this spec may use an API that needs `version`.
    func covers(_ version: VersionTuple) -> Bool {
        switch self {
        case .introduced(let introduced): introduced >= version
        // An unavailable declaration is never compiled for the platform's callers.
        case .unavailable: true
        case .unmentioned: false
        }
    }
}

/// The `@available` attributes of a declaration, as one spec for `platform`: the newest
/// version any of them names, or unavailable if one says so.
func declaredAvailability(_ attributes: AttributeListSyntax, for platform: Platform) -> AvailabilitySpec {
    var result = AvailabilitySpec.unmentioned
    for element in attributes {
        guard case .attribute(let attribute) = element, attribute.attributeName.trimmedDescription == "available",
            case .availability(let arguments) = attribute.arguments
        else { continue }
        switch (result, AvailabilitySpec(arguments, for: platform)) {
        case (_, .unavailable): return .unavailable
        case (.introduced(let old), .introduced(let new)): result = .introduced(max(old, new))
        case (.unmentioned, .introduced(let new)): result = .introduced(new)
        default: break
        }
    }
    return result
}

/// Whether an `#available` among `conditions` (before `stop`, when given) covers `version`
/// on `platform`.
private func conditionsCover(
    _ conditions: ConditionElementListSyntax, before stop: SyntaxIdentifier? = nil, _ version: VersionTuple,
    on platform: Platform
) -> Bool {
    for element in conditions {
        if element.id == stop { return false }
        guard case .availability(let condition) = element.condition,
            condition.availabilityKeyword.tokenKind == .poundAvailable
        else { continue }
        if AvailabilitySpec(condition.availabilityArguments, for: platform).covers(version) { return true }
    }
    return false
}

/// Whether an `#unavailable` among `conditions` names `version` or newer: its `else` branch
/// then runs only where the API exists.
private func unavailabilityCovers(
    _ conditions: ConditionElementListSyntax, _ version: VersionTuple, on platform: Platform
)
    -> Bool
{
    conditions.contains { element in
        guard case .availability(let condition) = element.condition,
            condition.availabilityKeyword.tokenKind == .poundUnavailable
        else { return false }
        return AvailabilitySpec(condition.availabilityArguments, for: platform).covers(version)
    }
}

/// Whether the code at `node` may use an API that needs `version` on `platform`: an
/// enclosing declaration's `@available` says so (or `impliedAvailability`, for a type
/// whose own attributes imply it), or it runs under an `if #available`, after a
/// `guard #available`, or in the `else` of an `if #unavailable`.
func isCovered(
    _ node: some SyntaxProtocol, needs version: VersionTuple, on platform: Platform,
    impliedAvailability: (Syntax) -> VersionTuple? = { _ in nil }
) -> Bool {
    var current = Syntax(node)
    while let parent = current.parent {
        if let declaration = parent.asProtocol(WithAttributesSyntax.self),
            declaredAvailability(declaration.attributes, for: platform).covers(version)
        {
            return true
        }
        // A type its own attributes restrict (`@Observable`) covers its members, not the
        // attributes themselves.
        if parent.is(MemberBlockSyntax.self), let implied = impliedAvailability(parent.parent ?? parent),
            implied >= version
        {
            return true
        }
        if let ifExpression = parent.as(IfExprSyntax.self) {
            if current.id == ifExpression.body.id, conditionsCover(ifExpression.conditions, version, on: platform) {
                return true
            }
            if current.id == ifExpression.elseBody?.id,
                unavailabilityCovers(ifExpression.conditions, version, on: platform)
            {
                return true
            }
        }
        // A later condition of the same `if` or `guard` (`if #available(...), let x = ...`).
        if let conditions = parent.as(ConditionElementListSyntax.self),
            conditionsCover(conditions, before: current.id, version, on: platform)
        {
            return true
        }
        // Statements after a `guard #available(...) else { ... }` in the same block.
        if let items = parent.as(CodeBlockItemListSyntax.self) {
            for item in items {
                if item.id == current.id { break }
                if let guardStatement = item.item.as(GuardStmtSyntax.self),
                    conditionsCover(guardStatement.conditions, version, on: platform)
                {
                    return true
                }
            }
        }
        current = parent
    }
    return false
}
