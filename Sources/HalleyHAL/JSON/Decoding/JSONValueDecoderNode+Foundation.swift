import Foundation

/// The types `JSONDecoder` decodes by its own rules rather than through their `init(from:)`:
/// `Date` and `Data` by the decoder's strategies, `URL` from a string, `Decimal` from the
/// number's digits, and `[String: _]` without key conversion.
extension JSONValueDecoderNode {
    func date(from value: JSONValue, key: some CodingKey) throws -> Date {
        try requireNonNull(value, Date.self, key: key)
        switch options.dates {
        case .deferredToDate:
            return try Date(from: decoder(for: value, key: key))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try double(from: value, key: key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try double(from: value, key: key) / 1000)
        case .iso8601:
            let string = try string(from: value, key: key)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                // At the path of the decoder in charge, not the date's own: `JSONDecoder` does so.
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoderInCharge.codingPath,
                        debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        #if canImport(Darwin)
            case .formatted(let formatter):
                let string = try string(from: value, key: key)
                guard let date = formatter.date(from: string) else {
                    throw dataCorrupted("Date string does not match format expected by formatter.", key: key)
                }
                return date
        #endif
        case .custom(let decode):
            return try decode(decoder(for: value, key: key))
        }
    }

    func data(from value: JSONValue, key: some CodingKey) throws -> Data {
        try requireNonNull(value, Data.self, key: key)
        switch options.data {
        case .deferredToData:
            return try Data(from: decoder(for: value, key: key))
        case .base64:
            guard case .string(let string) = value else { throw typeMismatch(String.self, found: value, key: key) }
            guard let data = Data(base64Encoded: string) else {
                throw dataCorrupted("Encountered Data is not valid Base64.", key: key)
            }
            return data
        case .custom(let decode):
            return try decode(decoder(for: value, key: key))
        }
    }

    func url(from value: JSONValue, key: some CodingKey) throws -> URL {
        try requireNonNull(value, URL.self, key: key)
        guard let url = URL(string: try string(from: value, key: key)) else {
            throw dataCorrupted("Invalid URL string.", key: key)
        }
        return url
    }

    func decimal(from value: JSONValue, key: some CodingKey) throws -> Decimal {
        try requireNonNull(value, Decimal.self, key: key)
        switch value {
        case .int, .double:
            guard let decimal = JSONNumberConversion.decimal(from: value) else {
                throw JSONValueDecodingErrors.NumberDoesNotFit()
            }
            return decimal
        default:
            // `JSONDecoder` gives this mismatch no description.
            throw DecodingError.typeMismatch(
                Decimal.self, DecodingError.Context(codingPath: codingPath(appending: key), debugDescription: ""))
        }
    }
}

/// `[String: Value]`, which `JSONDecoder` decodes with its keys as written even under a key
/// strategy: they are data, not property names.
protocol StringKeyedDictionaryDecodable {
    static func decodeKeepingKeys<Location: CodingKey>(
        from value: JSONValue, in node: JSONValueDecoderNode, key: Location
    ) throws -> Self
}

extension Dictionary: StringKeyedDictionaryDecodable where Key == String, Value: Decodable {
    static func decodeKeepingKeys<Location: CodingKey>(
        from value: JSONValue, in node: JSONValueDecoderNode, key: Location
    ) throws -> Self {
        try node.requireNonNull(value, [String: Any].self, key: key)
        guard case .object(let object) = value else {
            throw node.typeMismatch([String: Any].self, found: value, key: key)
        }
        let position = Location.self == NoKey.self ? node : node.nested(value, key: key)
        // The tree keeps members whose names differ only in Unicode normalisation; this
        // dictionary could not, so the first of them fails instead of one vanishing.
        let names = object.keys
        if let conflated = JSONValueDecodingErrors.conflatedNames(names),
            let name = names.first(where: { conflated[CodeUnitKey($0)] != nil }),
            let other = conflated[CodeUnitKey(name)]
        {
            throw position.dataCorrupted(
                JSONValueDecodingErrors.conflated(name, with: other), key: AnyCodingKey(name))
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        for member in 0..<object.count {
            let name = object.key(atPosition: member)
            result[name] = try position.decode(
                Value.self, from: object.value(atPosition: member), key: AnyCodingKey(name))
        }
        return result
    }
}
