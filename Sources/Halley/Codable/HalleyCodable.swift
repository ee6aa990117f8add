/// A model decoded from a HAL resource: attributes, `_links`, and included relationships
/// as plain properties.
///
/// ```swift
/// struct Website: HalleyCodable { let _links: Links?; let id: Int; let url: URL }
///
/// struct Contact: HalleyCodable {
///     let _links: Links?
///     let id: Int
///     let contacts: [Contact]?   // included as "[contacts]"
///     let website: Website?      // included as "website"
/// }
/// ```
public protocol HalleyCodable: Codable {}
