import Foundation
import Halley

// The typed models of the decode scenario, shaped like the README's contacts, and the
// collection document they are decoded from.

struct BenchWebsite: HalleyCodable {
    let _links: Links?
    let id: String
    let url: URL
}

struct BenchAddress: Codable {
    let street: String
    let city: String
    let postalCode: String
    let country: String
}

struct BenchContact: HalleyCodable {
    let _links: Links?
    let id: String
    let name: String
    let email: String
    let phone: String
    let company: String
    let tags: [String]
    let address: BenchAddress
    let notes: String
    let createdAt: String
    /// Included as `[contacts].website`, from the contact's `_embedded`.
    let website: BenchWebsite?
}

struct BenchContactList: HalleyCodable {
    let _links: Links?
    let total: Int
    /// Included as `[contacts]`, from the collection's `_embedded`.
    let contacts: [BenchContact]
}

// The same data without `_links` properties: decoding `Links` through `JSONDecoder` is a
// large share of the plain decode, so these show how the ratio moves without it.

struct LiteWebsite: HalleyCodable {
    let id: String
    let url: URL
}

struct LiteContact: HalleyCodable {
    let id: String
    let name: String
    let email: String
    let phone: String
    let company: String
    let tags: [String]
    let address: BenchAddress
    let notes: String
    let createdAt: String
    let website: LiteWebsite?
}

struct LiteContactList: HalleyCodable {
    let total: Int
    let contacts: [LiteContact]
}

enum DecodeFixtures {
    static let path = "/contacts"

    /// A collection embedding `count` contacts, each embedding its website (about 650 bytes
    /// per contact).
    static func collection(count: Int) -> JSONValue {
        let contacts: [JSONValue] = (0..<count).map { index in
            let website = BenchGraphs.resource(
                "/websites/\(index)",
                state: [("id", .string("w\(index)")), ("url", .string("https://contact\(index).example.com/"))])
            return BenchGraphs.resource(
                "/contacts/\(index)",
                links: [
                    ("website", BenchGraphs.link("/websites/\(index)")),
                    ("contacts", BenchGraphs.link("/contacts/\(index)/contacts")),
                ],
                state: [
                    ("id", .string("\(index)")),
                    ("name", .string("Contact Number \(index)")),
                    ("email", .string("contact.\(index)@mail.example.com")),
                    ("phone", .string("+1-555-\(pad(index % 10_000, 4))")),
                    ("company", .string("Company \(index % 97) Ltd.")),
                    (
                        "tags",
                        .array([.string("customer"), .string("tier-\(index % 3)"), .string("region-\(index % 7)")])
                    ),
                    (
                        "address",
                        [
                            "street": .string("\(index % 500 + 1) Long Benchmark Street"),
                            "city": .string("City \(index % 50)"),
                            "postalCode": .string(pad(index % 100_000, 5)),
                            "country": "Netherlands",
                        ]
                    ),
                    (
                        "notes",
                        .string(
                            "Met at conference \(index % 12); prefers e-mail; follow up in Q\(index % 4 + 1). \"Quoted\" text\n"
                        )
                    ),
                    ("createdAt", .string("2024-\(pad(index % 12 + 1, 2))-15T10:20:30Z")),
                ],
                embedded: [("website", website)])
        }
        return BenchGraphs.resource(
            path, links: [("next", BenchGraphs.link(path + "?page=2"))], state: [("total", .int(count))],
            embedded: [("contacts", .array(contacts))])
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Where two decoded lists differ, or `nil` when they hold the same data.
    ///
    /// Links are compared as sets of (rel, hrefs): a `Links` decoded through `JSONDecoder`
    /// gets its relations in the decoder's `allKeys` order, not the document's.
    static func firstDifference(_ lhs: BenchContactList, _ rhs: BenchContactList) -> String? {
        func links(_ links: Links?) -> [String] {
            Set((links?.relations ?? []).map { $0.rel.rawValue + " " + $0.links.map(\.href).joined(separator: " ") })
                .sorted()
        }
        func website(_ site: BenchWebsite?) -> [String] {
            guard let site else { return ["no website"] }
            return [site.id, site.url.absoluteString] + links(site._links)
        }
        func contact(_ contact: BenchContact) -> [String] {
            [
                contact.id, contact.name, contact.email, contact.phone, contact.company, contact.notes,
                contact.createdAt,
                contact.address.street, contact.address.city, contact.address.postalCode, contact.address.country,
            ]
                + contact.tags + website(contact.website) + links(contact._links)
        }
        if lhs.total != rhs.total { return "total \(lhs.total) vs \(rhs.total)" }
        if links(lhs._links) != links(rhs._links) {
            return "collection links \(links(lhs._links)) vs \(links(rhs._links))"
        }
        if lhs.contacts.count != rhs.contacts.count { return "\(lhs.contacts.count) vs \(rhs.contacts.count) contacts" }
        for (index, (left, right)) in zip(lhs.contacts, rhs.contacts).enumerated() where contact(left) != contact(right)
        {
            return "contact \(index): \(contact(left)) vs \(contact(right))"
        }
        return nil
    }
}
