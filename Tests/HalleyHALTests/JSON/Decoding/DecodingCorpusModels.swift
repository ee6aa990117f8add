import Foundation
import HalleyHAL

// The models of the tree decoder's differential corpus: every shape `Codable` synthesizes and
// the hand-written ones that reach each container call (nested containers, super decoders,
// `decodeNil`, `allKeys`, `codingPath`, `userInfo`).

struct Scalars: Codable, Equatable {
    let bool: Bool
    let string: String
    let int: Int
    let int8: Int8
    let int16: Int16
    let int32: Int32
    let int64: Int64
    let uint: UInt
    let uint8: UInt8
    let uint16: UInt16
    let uint32: UInt32
    let uint64: UInt64
    let float: Float
    let double: Double
}

struct OptionalScalars: Codable, Equatable {
    let bool: Bool?
    let string: String?
    let int: Int?
    let int8: Int8?
    let int16: Int16?
    let int32: Int32?
    let int64: Int64?
    let uint: UInt?
    let uint8: UInt8?
    let uint16: UInt16?
    let uint32: UInt32?
    let uint64: UInt64?
    let float: Float?
    let double: Double?
    let nested: Leaf?
    let list: [Int]?
}

struct Leaf: Codable, Equatable, Hashable {
    let id: Int
    let name: String
}

struct Branch: Codable, Equatable {
    let title: String
    let leaves: [Leaf]
    let byName: [String: Leaf]
    let grid: [[Int]]
    let maybe: [Leaf?]
    let tags: Set<String>
}

struct Tree: Codable, Equatable {
    let branches: [Branch]
    let index: [String: [Leaf]]
}

/// The 128-bit integers, which Apple platforms have from these versions on.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
struct WideIntegers: Codable, Equatable {
    let signed: Int128
    let unsigned: UInt128?
}

enum Colour: String, Codable, Equatable, CodingKeyRepresentable {
    case red, green
}

enum Rank: Int, Codable, Equatable {
    case low = 1
    case high = 2
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(Double)
    case labelled(String, sides: Int)
    case empty
}

struct Enums: Codable, Equatable {
    let colour: Colour
    let rank: Rank
    let shapes: [Shape]
    let byColour: [Colour: Int]
}

struct IntKeyed: Codable, Equatable {
    let byNumber: [Int: String]
}

struct Dated: Codable, Equatable {
    let at: Date
    let maybe: Date?
    let list: [Date]
    let byName: [String: Date]
}

struct Blob: Codable, Equatable {
    let data: Data
    let maybe: Data?
    let list: [Data]
}

struct Locations: Codable, Equatable {
    let url: URL
    let maybe: URL?
}

struct Money: Codable, Equatable {
    let amount: Decimal
    let list: [Decimal]
    let maybe: Decimal?

    /// `Decimal`'s `==` compares values; the digits it keeps should agree too.
    static func == (lhs: Money, rhs: Money) -> Bool {
        lhs.amount == rhs.amount && lhs.amount.description == rhs.amount.description
            && lhs.list.map(\.description) == rhs.list.map(\.description) && lhs.maybe == rhs.maybe
    }
}

/// Non-finite values compare by bit pattern, so NaN equals NaN.
struct Floats: Codable, Equatable {
    let double: Double
    let float: Float
    let doubles: [Double]
    let floats: [Float]?

    static func == (lhs: Floats, rhs: Floats) -> Bool {
        lhs.double.bitPattern == rhs.double.bitPattern && lhs.float.bitPattern == rhs.float.bitPattern
            && lhs.doubles.map(\.bitPattern) == rhs.doubles.map(\.bitPattern)
            && lhs.floats?.map(\.bitPattern) == rhs.floats?.map(\.bitPattern)
    }
}

/// Member names that `.convertFromSnakeCase` has to get right.
struct SnakeCased: Codable, Equatable {
    let firstName: String
    let _links: String?
    let trailing: String?
    let both: String?
    let aB: String?
    let allCaps: String?
    let with1Number: String?
    let alreadyCamelCase: String?
    let leadingCAPS: String?
    let mapping: [String: Int]?

    enum CodingKeys: String, CodingKey {
        case firstName, _links, aB, allCaps, with1Number, alreadyCamelCase, leadingCAPS, mapping
        case trailing = "trailing_"
        case both = "__both__"
    }
}

/// Reads what a decoder tells about itself: its coding path, the containers' paths, counts
/// and indices, `allKeys`, `contains` and `userInfo`.
struct Introspective: Decodable, Equatable {
    let path: [String]
    let keys: [String]
    let hasMissing: Bool
    let items: [Item]
    let user: String?

    static let userInfoKey = CodingUserInfoKey(rawValue: "corpus.user")!

    enum CodingKeys: String, CodingKey {
        case items, user, missing
    }

    struct Item: Decodable, Equatable {
        let path: [String]
        let containerPath: [String]
        let unkeyed: [String]

        init(from decoder: any Decoder) throws {
            path = decoder.codingPath.map(DecodingComparison.render)
            var container = try decoder.unkeyedContainer()
            containerPath = container.codingPath.map(DecodingComparison.render)
            var seen: [String] = ["count \(container.count ?? -1)"]
            while !container.isAtEnd {
                let index = container.currentIndex
                if try container.decodeNil() {
                    seen.append("\(index): null")
                } else {
                    seen.append("\(index): \(try container.decode(Int.self))")
                }
            }
            // Reading past the end keeps counting, as JSONDecoder's container does.
            _ = try container.decodeIfPresent(Int.self)
            seen.append("after: \(container.currentIndex) \(container.isAtEnd)")
            unkeyed = seen
        }
    }

    init(from decoder: any Decoder) throws {
        path = decoder.codingPath.map(DecodingComparison.render)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = container.allKeys.map(\.stringValue).sorted()
        hasMissing = container.contains(.missing)
        items = try container.decode([Item].self, forKey: .items)
        user = decoder.userInfo[Self.userInfoKey] as? String
    }
}

/// Every nested-container call, keyed and unkeyed, in one model.
struct Nesting: Decodable, Equatable {
    let inner: Int
    let pairs: [String]
    let matrix: [[Int]]
    let names: [String]
    let explicitNil: Bool
    let optional: Int?

    enum CodingKeys: String, CodingKey {
        case outer, pairs, matrix, records, flag, optional
    }

    enum OuterKeys: String, CodingKey {
        case inner
    }

    enum RecordKeys: String, CodingKey {
        case name
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let outer = try container.nestedContainer(keyedBy: OuterKeys.self, forKey: .outer)
        inner = try outer.decode(Int.self, forKey: .inner)
        var pairs = try container.nestedUnkeyedContainer(forKey: .pairs)
        var pairList: [String] = []
        while !pairs.isAtEnd {
            var pair = try pairs.nestedUnkeyedContainer()
            pairList.append("\(try pair.decode(String.self))=\(try pair.decode(Int.self))")
        }
        self.pairs = pairList
        var rows = try container.nestedUnkeyedContainer(forKey: .matrix)
        var matrix: [[Int]] = []
        while !rows.isAtEnd { matrix.append(try rows.decode([Int].self)) }
        self.matrix = matrix
        var records = try container.nestedUnkeyedContainer(forKey: .records)
        var names: [String] = []
        while !records.isAtEnd {
            let record = try records.nestedContainer(keyedBy: RecordKeys.self)
            names.append(try record.decode(String.self, forKey: .name))
        }
        self.names = names
        explicitNil = try container.decodeNil(forKey: .flag)
        optional = try container.decode(Int?.self, forKey: .optional)
    }
}

/// A class hierarchy decoded through super decoders.
class Animal: Decodable {
    let name: String

    required init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: AnimalKeys.self).decode(String.self, forKey: .name)
    }

    enum AnimalKeys: String, CodingKey {
        case name
    }
}

final class Dog: Animal, Equatable {
    let breed: String
    let parentName: String?
    let first: String

    enum DogKeys: String, CodingKey {
        case breed, parent, litter
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DogKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        parentName = try Animal(from: container.superDecoder(forKey: .parent)).name
        var litter = try container.nestedUnkeyedContainer(forKey: .litter)
        first = try Animal(from: litter.superDecoder()).name
        try super.init(from: container.superDecoder())
    }

    static func == (lhs: Dog, rhs: Dog) -> Bool {
        lhs.name == rhs.name && lhs.breed == rhs.breed && lhs.parentName == rhs.parentName && lhs.first == rhs.first
    }
}

/// A super decoder for a key that is absent sees `null`.
struct AbsentSuper: Decodable, Equatable {
    let sawNull: Bool
    let path: [String]

    enum CodingKeys: String, CodingKey {
        case nothing
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let superDecoder = try container.superDecoder(forKey: .nothing)
        sawNull = try superDecoder.singleValueContainer().decodeNil()
        path = superDecoder.codingPath.map(DecodingComparison.render)
    }
}

/// Errors a model throws itself travel up unchanged.
struct Validated: Decodable, Equatable {
    let value: Int

    struct TooSmall: Error, CustomStringConvertible {
        let value: Int
        var description: String { "too small: \(value)" }
    }

    enum CodingKeys: String, CodingKey {
        case value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decode(Int.self, forKey: .value)
        if value < 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .value, in: container, debugDescription: "negative values are not allowed")
        }
        if value < 10 { throw TooSmall(value: value) }
    }
}

/// Reads past the end of an array, and asks for containers of the wrong kind.
struct Overreach: Decodable, Equatable {
    enum Reach: String, Decodable {
        case element, nestedKeyed, nestedUnkeyed, superDecoder, keyedOnArray, unkeyedOnObject, nestedOnNull
    }

    init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey {
            case mode, list, object, null
        }
        let container = try decoder.container(keyedBy: Keys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        while !list.isAtEnd { _ = try list.decode(Int.self) }
        switch try container.decode(Reach.self, forKey: .mode) {
        case .element: _ = try list.decode(String.self)
        case .nestedKeyed: _ = try list.nestedContainer(keyedBy: Keys.self)
        case .nestedUnkeyed: _ = try list.nestedUnkeyedContainer()
        case .superDecoder: _ = try list.superDecoder()
        case .keyedOnArray: _ = try container.nestedContainer(keyedBy: Keys.self, forKey: .list)
        case .unkeyedOnObject: _ = try container.nestedUnkeyedContainer(forKey: .object)
        case .nestedOnNull: _ = try container.nestedContainer(keyedBy: Keys.self, forKey: .null)
        }
    }
}

/// Open-shaped values and Halley's own types.
struct OpenShapes: Codable, Equatable {
    let any: JSONValue
    let object: JSONObject?
    let list: [JSONValue]
}

/// A HAL resource with links, as typed calls decode them; relations are compared in rel order
/// because `JSONDecoder` gives `allKeys` in an unspecified order, and each link by its whole
/// object (members in any order, as `Link`'s `==` compares them).
struct Linked: Decodable, Equatable {
    let _links: Links
    let title: String
    let one: Link?

    static func == (lhs: Linked, rhs: Linked) -> Bool {
        func relations(_ links: Links) -> [Links.Relation] {
            links.relations.sorted { $0.rel.rawValue < $1.rel.rawValue }
        }
        func problems(_ links: Links) -> Set<String> {
            Set(links.problems.map { "\($0.code) \($0.path) \($0.relation?.rawValue ?? "")" })
        }
        return lhs.title == rhs.title && lhs.one == rhs.one && relations(lhs._links) == relations(rhs._links)
            && problems(lhs._links) == problems(rhs._links)
            && Set(lhs._links.curies.map(\.name)) == Set(rhs._links.curies.map(\.name))
    }
}

/// Something at the top level that is not an object.
struct Wrapped<Value: Decodable & Equatable>: Decodable, Equatable {
    let value: Value
}
