import Foundation

/// The relationships one call fetches, as a tree: what string includes and typed include
/// lists both compile to, and what the traversal engine walks.
///
/// Paths sharing a prefix share its nodes, so `"[contacts]"` and `"[contacts].website"`
/// fetch the contacts once.
///
/// ```swift
/// let plan = try IncludePlan(["[contacts]", "[contacts].website", "website"])
/// plan.paths   // ["[contacts]", "[contacts].website", "website"]
/// ```
public struct IncludePlan: Sendable, Hashable, CustomStringConvertible {
    /// One relationship to resolve and, below it, the relationships of what it points at.
    public struct Node: Sendable, Hashable {
        /// The relation, its cardinality and link-name selector.
        public let segment: IncludePath.Segment
        /// The canonical path from the root to this node, e.g. `[contacts].website`; events
        /// and errors name it.
        public let path: String
        /// Template variables for this node's link, most specific of all.
        public internal(set) var variables: [String: TemplateValue]
        /// Query items appended to this node's URLs.
        public internal(set) var queryItems: [URLQueryItem]
        /// What to include from the resources this node reaches.
        public internal(set) var children: [Node]

        /// The key the result lands under in its parent: the relation as written.
        public var resultKey: String { segment.rel.rawValue }
    }

    /// The relationships of the root resource.
    public private(set) var children: [Node] = []

    /// An empty plan: fetch the root only.
    public init() {}

    /// Compiles includes into one tree.
    ///
    /// - Throws: ``IncludePathError`` for a malformed path, or
    ///   ``IncludePathError/Code/conflictingInclude`` when two paths include the same
    ///   relation as to-one and to-many (or with different link names).
    public init(_ includes: [Include]) throws(IncludePathError) {
        for include in includes {
            try add(IncludePath(include.path), variables: include.variables, queryItems: include.queryItems)
        }
    }

    /// Compiles string paths into one tree.
    ///
    /// - Throws: ``IncludePathError``.
    public init(paths: [String]) throws(IncludePathError) {
        try self.init(paths.map { Include($0) })
    }

    /// Adds a path to the tree, sharing the nodes of any common prefix.
    ///
    /// - Throws: ``IncludePathError/Code/conflictingInclude`` when the path disagrees with
    ///   one already added about a relation's cardinality or link name.
    public mutating func add(
        _ path: IncludePath, variables: [String: TemplateValue] = [:], queryItems: [URLQueryItem] = []
    ) throws(IncludePathError) {
        try Self.insert(path, from: 0, parentPath: "", into: &children, variables: variables, queryItems: queryItems)
    }

    private static func insert(
        _ path: IncludePath, from index: Int, parentPath: String, into nodes: inout [Node],
        variables: [String: TemplateValue], queryItems: [URLQueryItem]
    ) throws(IncludePathError) {
        guard index < path.segments.count else { return }
        let segment = path.segments[index]
        let isLast = index == path.segments.count - 1
        let nodePath = parentPath.isEmpty ? segment.description : parentPath + "." + segment.description
        let position: Int
        if let existing = nodes.firstIndex(where: { $0.segment.rel == segment.rel }) {
            let node = nodes[existing]
            guard node.segment == segment else {
                let what =
                    node.segment.isToMany != segment.isToMany
                    ? "as to-one and as to-many" : "with two different link names"
                throw IncludePathError(
                    code: .conflictingInclude, path: path.text, offset: path.offsets[index],
                    message: "\(segment.rel) is included \(what) (\(node.path) and \(nodePath))")
            }
            position = existing
        } else {
            nodes.append(Node(segment: segment, path: nodePath, variables: [:], queryItems: [], children: []))
            position = nodes.count - 1
        }
        if isLast {
            nodes[position].variables = nodes[position].variables.overlaid(with: variables)
            nodes[position].queryItems += queryItems
        }
        try insert(
            path, from: index + 1, parentPath: nodePath, into: &nodes[position].children,
            variables: variables, queryItems: queryItems)
    }

    /// Whether the plan fetches nothing beyond the root.
    public var isEmpty: Bool { children.isEmpty }

    /// Every node's path, depth first in insertion order.
    public var paths: [String] {
        var result: [String] = []
        func visit(_ nodes: [Node]) {
            for node in nodes {
                result.append(node.path)
                visit(node.children)
            }
        }
        visit(children)
        return result
    }

    /// The longest path, in segments.
    public var depth: Int {
        func depth(_ nodes: [Node]) -> Int { nodes.map { 1 + depth($0.children) }.max() ?? 0 }
        return depth(children)
    }

    /// The paths, comma separated.
    public var description: String { paths.joined(separator: ", ") }
}
