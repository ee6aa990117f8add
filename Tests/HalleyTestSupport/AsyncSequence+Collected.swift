import Foundation

extension AsyncSequence {
    /// The elements in order, for sequences built with standard operators.
    public func collected() async throws -> [Element] {
        try await reduce(into: []) { $0.append($1) }
    }
}
