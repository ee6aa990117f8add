import Foundation
import HalleyHAL

/// Spring Data REST's paging metadata.
public struct PageMetadata: Sendable, Hashable, Codable {
    /// Items per page.
    public let size: Int
    /// Items in the whole collection.
    public let totalElements: Int
    /// Pages in the whole collection.
    public let totalPages: Int
    /// This page's zero-based index.
    public let number: Int

    /// Creates metadata.
    public init(size: Int, totalElements: Int, totalPages: Int, number: Int) {
        self.size = size
        self.totalElements = totalElements
        self.totalPages = totalPages
        self.number = number
    }

    /// Reads the four integers from a `page` object; `nil` when one is missing.
    init?(_ object: JSONObject?) {
        guard let object, let size = object["size"]?.intValue, let total = object["totalElements"]?.intValue,
            let pages = object["totalPages"]?.intValue, let number = object["number"]?.intValue
        else { return nil }
        self.init(size: size, totalElements: total, totalPages: pages, number: number)
    }
}
