import Foundation
import Testing

@testable import Halley

/// The chaos server's contacts graph as the reliability suites traverse it, and what a
/// traversal must return when the server failed some of its resources.
///
/// The expected partial result is worked out from the fault-free result and the server's
/// log, not from the library: every relationship whose data came from a failed resource is
/// taken out (a to-one leaves its key, a to-many item leaves its array, a collection link
/// leaves its key), and each of those places is one expected failure with its include path
/// and URL. What lies below a removed place is never requested, so it is neither expected in
/// the document nor among the failures.
enum ContactsGraph {
    /// Every shape: to-one and to-many links, a collection link with embedded items, embedded
    /// to-one and to-many, links inside embedded resources, nested includes, shared and
    /// cyclic URLs (owner and friends are contacts too).
    static let includes: [Include] = [
        "owner.website", "[contacts].website", "[contacts].company.headquarters", "[contacts].address.country",
        "[contacts].[phones]", "[contacts].[friends].website", "settings.theme", "[groups].[members]",
    ]

    /// One relationship of ``includes``, as the test knows it (not read from the library).
    struct Relation: Sendable {
        let name: String
        let toMany: Bool
        let children: [Relation]

        init(_ name: String, toMany: Bool = false, _ children: [Relation] = []) {
            self.name = name
            self.toMany = toMany
            self.children = children
        }

        /// `name` or `[name]`, as the include path writes it.
        var segment: String { toMany ? "[\(name)]" : name }
    }

    static let relations: [Relation] = [
        Relation("owner", [Relation("website")]),
        Relation(
            "contacts", toMany: true,
            [
                Relation("website"), Relation("company", [Relation("headquarters")]),
                Relation("address", [Relation("country")]), Relation("phones", toMany: true),
                Relation("friends", toMany: true, [Relation("website")]),
            ]),
        Relation("settings", [Relation("theme")]),
        Relation("groups", toMany: true, [Relation("members", toMany: true)]),
    ]

    /// A place where a failed resource's data would have been: its include path and URL.
    struct Placement: Sendable, Hashable, CustomStringConvertible {
        let includePath: String
        let url: String

        var description: String { "\(includePath) \(url)" }
    }

    // MARK: From the server's log

    /// The resources (relative to the seed's prefix) whose last answer failed them, with that
    /// answer's fault: what the client was finally left with after any retries.
    static func failedResources(_ log: [ChaosLogEntry], prefix: String) -> [String: String] {
        var last: [String: ChaosLogEntry] = [:]
        for entry in log where !entry.redirected {
            let resource = entry.resource(under: prefix)
            if let previous = last[resource], previous.attempt > entry.attempt { continue }
            last[resource] = entry
        }
        return last.filter { $0.value.isFailing && $0.value.state == "completed" }.mapValues(\.fault)
    }

    // MARK: The expected result

    /// The fault-free result without the places whose resource failed, and those places.
    static func expected(from reference: JSONValue, root: URL, prefix: String, failed: Set<String>)
        -> (document: JSONValue, failures: [Placement])
    {
        guard let object = reference.objectValue else { return (reference, []) }
        var failures: [Placement] = []
        let document = prune(
            object, base: root, relations: relations, parentPath: "", prefix: prefix, failed: failed,
            failures: &failures)
        return (.object(document), failures)
    }

    private static func prune(
        _ object: JSONObject, base: URL, relations: [Relation], parentPath: String, prefix: String,
        failed: Set<String>, failures: inout [Placement]
    ) -> JSONObject {
        var result = object
        for relation in relations {
            let path = parentPath.isEmpty ? relation.segment : parentPath + "." + relation.segment
            guard let value = object[relation.name] else { continue }
            func descend(_ item: JSONValue, base: URL) -> JSONValue {
                guard let child = item.objectValue else { return item }
                return .object(
                    prune(
                        child, base: base, relations: relation.children, parentPath: path, prefix: prefix,
                        failed: failed, failures: &failures))
            }
            func isFailed(_ url: URL) -> Bool {
                failed.contains(String(url.path.dropFirst(prefix.count)))
            }
            switch object["_links"]?[relation.name] {
            case nil:
                // Embedded: it came with its parent, so it cannot fail on its own.
                if relation.toMany {
                    result[relation.name] = .array((value.arrayValue ?? []).map { descend($0, base: base) })
                } else {
                    result[relation.name] = descend(value, base: base)
                }
            case .array(let links)?:
                var kept: [JSONValue] = []
                for (link, item) in zip(links, value.arrayValue ?? []) {
                    let url = resolve(link, against: base)
                    if isFailed(url) {
                        failures.append(Placement(includePath: path, url: url.absoluteString))
                    } else {
                        kept.append(descend(item, base: url))
                    }
                }
                result[relation.name] = .array(kept)
            case let link?:
                let url = resolve(link, against: base)
                if isFailed(url) {
                    failures.append(Placement(includePath: path, url: url.absoluteString))
                    _ = result.removeValue(forKey: relation.name)
                } else if relation.toMany {
                    // A collection: its items are embedded in it.
                    result[relation.name] = .array((value.arrayValue ?? []).map { descend($0, base: url) })
                } else {
                    result[relation.name] = descend(value, base: url)
                }
            }
        }
        return result
    }

    private static func resolve(_ link: JSONValue, against base: URL) -> URL {
        let href = link["href"]?.stringValue ?? ""
        return URL(string: href, relativeTo: base)?.absoluteURL ?? base
    }

    // MARK: Checks

    /// Problems with the fault-free result itself: the graph's shape, and every relationship
    /// on its own parent (a website names its contact, a country its contact's address, ...).
    static func referenceProblems(_ document: JSONValue) -> [String] {
        var problems = attachmentProblems(document)
        if document["contacts"]?.arrayValue?.count != 8 { problems.append("not 8 contacts") }
        if document["groups"]?.arrayValue?.compactMap({ $0["members"]?.arrayValue?.count }) != [3, 3, 3] {
            problems.append("not 3 groups of 3 members")
        }
        if document["settings"]?["theme"]?["theme"] != "dark" { problems.append("no theme") }
        if document["owner"]?["website"]?["owner"] != "contacts/1" { problems.append("no owner's website") }
        return problems
    }

    /// Relationships attached to the wrong parent anywhere in `document`: each contact's
    /// website, company, country and phones must be that contact's.
    static func attachmentProblems(_ document: JSONValue) -> [String] {
        var problems: [String] = []
        func check(contact: JSONValue, at path: String) {
            guard let id = contact["id"]?.intValue else {
                problems.append("\(path): a contact without an id")
                return
            }
            if let website = contact["website"], website["owner"]?.stringValue != "contacts/\(id)" {
                problems.append("\(path): contact \(id) has the website of \(website["owner"] ?? "nobody")")
            }
            if let company = contact["company"], company["name"]?.stringValue != "Company \(id % 3)" {
                problems.append("\(path): contact \(id) has \(company["name"] ?? "no company")")
            }
            if let headquarters = contact["company"]?["headquarters"],
                headquarters["company"]?.stringValue != "companies/\(id % 3)"
            {
                problems.append("\(path): contact \(id)'s company has the headquarters of \(headquarters)")
            }
            if let country = contact["address"]?["country"], country["code"]?.stringValue != "C\(id % 4)" {
                problems.append("\(path): contact \(id)'s address is in \(country["code"] ?? "nowhere")")
            }
            if let address = contact["address"], address["street"]?.stringValue != "\(id) Chaos Street" {
                problems.append("\(path): contact \(id) lives at \(address["street"] ?? "no street")")
            }
            for friend in contact["friends"]?.arrayValue ?? [] {
                check(contact: friend, at: path + ".friends")
            }
        }
        if let owner = document["owner"] { check(contact: owner, at: "owner") }
        for contact in document["contacts"]?.arrayValue ?? [] { check(contact: contact, at: "contacts") }
        for group in document["groups"]?.arrayValue ?? [] {
            for member in group["members"]?.arrayValue ?? [] { check(contact: member, at: "groups.members") }
        }
        return problems
    }

    /// The error code a fault must surface as.
    static func expectedCode(for fault: String) -> HalleyError.Code {
        switch fault {
        case "truncated-json": return .invalidDocument
        case "reset-before-body", "reset-during-body": return .transport
        default: return .http
        }
    }
}
