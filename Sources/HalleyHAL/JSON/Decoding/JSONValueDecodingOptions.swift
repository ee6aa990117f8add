import Foundation

/// A `JSONDecoder`'s configuration, read once per decode and shared by every position of it.
///
/// The strategies are copied into enums of our own so each use site switches over cases it
/// knows. A strategy case this code does not know (one a later Foundation adds) makes
/// ``init(_:)`` fail, and the caller then decodes with the `JSONDecoder` itself.
final class JSONValueDecodingOptions {
    enum Keys {
        case useDefaultKeys
        case convertFromSnakeCase
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    enum Dates {
        case deferredToDate
        case secondsSince1970
        case millisecondsSince1970
        case iso8601
        #if canImport(Darwin)
            case formatted(DateFormatter)
        #endif
        case custom(@Sendable (_ decoder: any Decoder) throws -> Date)
    }

    enum DataStrategy {
        case deferredToData
        case base64
        case custom(@Sendable (_ decoder: any Decoder) throws -> Data)
    }

    /// The strings that stand for non-finite numbers, when the decoder accepts them.
    struct NonConformingFloats {
        let positiveInfinity: String
        let negativeInfinity: String
        let nan: String
    }

    let keys: Keys
    let dates: Dates
    let data: DataStrategy
    let nonConformingFloats: NonConformingFloats?
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether keyed containers see member names as written; the common case, and the one
    /// where a `JSONValue` can be handed over without going through containers.
    let usesDefaultKeys: Bool

    /// Reads `decoder`'s configuration; `nil` when it uses a strategy case unknown here.
    init?(_ decoder: JSONDecoder) {
        switch decoder.keyDecodingStrategy {
        case .useDefaultKeys: keys = .useDefaultKeys
        case .convertFromSnakeCase: keys = .convertFromSnakeCase
        case .custom(let convert): keys = .custom(convert)
        @unknown default: return nil
        }
        switch decoder.dateDecodingStrategy {
        case .deferredToDate: dates = .deferredToDate
        case .secondsSince1970: dates = .secondsSince1970
        case .millisecondsSince1970: dates = .millisecondsSince1970
        case .iso8601: dates = .iso8601
        #if canImport(Darwin)
            case .formatted(let formatter): dates = .formatted(formatter)
        #endif
        case .custom(let decode): dates = .custom(decode)
        @unknown default: return nil
        }
        switch decoder.dataDecodingStrategy {
        case .deferredToData: data = .deferredToData
        case .base64: data = .base64
        case .custom(let decode): data = .custom(decode)
        @unknown default: return nil
        }
        switch decoder.nonConformingFloatDecodingStrategy {
        case .throw: nonConformingFloats = nil
        case .convertFromString(let positiveInfinity, let negativeInfinity, let nan):
            nonConformingFloats = NonConformingFloats(
                positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: nan)
        @unknown default: return nil
        }
        userInfo = decoder.userInfo
        if case .useDefaultKeys = keys {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }
}
