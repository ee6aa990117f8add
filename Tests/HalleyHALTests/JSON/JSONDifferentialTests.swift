import Foundation
import HalleyHAL
import HalleyTestFixtures
import Testing

/// Our parser against Foundation's `JSONSerialization`, which peers use to read the same bodies.
///
/// Every input must be accepted by both with equal values, or refused by both. Foundation runs
/// with `.fragmentsAllowed` because `JSONValue(parsing:)` reads any JSON value at the top level,
/// as RFC 8259 and `JSONDecoder` do; refusing a non-object root is `HALResource`'s job, with
/// its own error. The few differences we keep are the cases of ``DeliberateDifference``.
@Suite struct JSONDifferentialTests {
    /// Generated documents to run; `HALLEY_JSON_DIFF_DOCUMENTS` raises it for a longer soak.
    static let documentCount =
        ProcessInfo.processInfo.environment["HALLEY_JSON_DIFF_DOCUMENTS"].flatMap { Int($0) }
        ?? 1_500
    /// `HALLEY_JSON_DIFF_SEED` replays another sequence.
    static let seed =
        ProcessInfo.processInfo.environment["HALLEY_JSON_DIFF_SEED"].flatMap { UInt64($0) }
        ?? 0x4841_4C14

    @Test func generatedDocumentsAgreeWithFoundation() async {
        var generator = JSONDocumentGenerator(seed: Self.seed)
        var tally = DifferentialTally()
        for index in 0..<Self.documentCount {
            // Thousands of synchronous checks: give the (two, on this machine) cooperative
            // threads back now and then, so other suites' timers are not held up, least of
            // all under the sanitizers.
            if index % 20 == 0 { await Task.yield() }
            let document = Array(generator.document().utf8)
            tally.check(document, label: "document \(index)")
            tally.check(generator.mutate(document), label: "mutation 1 of document \(index)")
            tally.check(generator.mutate(document), label: "mutation 2 of document \(index)")
            tally.check(
                generator.insertingTrailingCommas(into: document, atDepth: nil),
                label: "trailing commas at every depth of document \(index)")
            tally.check(generator.tokenSoup(), label: "token soup \(index)")
            if index % 50 == 0 {
                for encoding in TextEncoding.allCases {
                    tally.check(encoding.encode(document), label: "\(encoding) of document \(index)")
                }
            }
        }
        for (label, bytes) in Self.deepDocuments() { tally.check(bytes, label: label) }

        tally.recordMismatches()
        #expect(tally.checked >= Self.documentCount * 5)
        // The generator has to keep producing both sides of the line, and trailing commas.
        #expect(tally.bothAccepted > Self.documentCount)
        #expect(tally.bothRefused > Self.documentCount)
        #expect(tally.acceptedWithTrailingComma > Self.documentCount / 2)
        // Every named exception is reached by generated input, so the generator covers them and
        // none is dead weight here or in the guide. Shorter runs may miss the rarest.
        if Self.documentCount >= 1_500 {
            for difference in DeliberateDifference.allCases {
                #expect(tally.differences[difference, default: 0] > 0, "\(difference) was never exercised")
            }
        }
    }

    @Test func fixturesAndTheirMutationsAgreeWithFoundation() async throws {
        let fixtures = try Self.jsonFiles(under: Fixture.directory)
        #expect(fixtures.count >= 70)
        var generator = JSONDocumentGenerator(seed: Self.seed ^ 0xF1F7)
        var tally = DifferentialTally()
        for url in fixtures {
            await Task.yield()  // as above
            let bytes = try [UInt8](Data(contentsOf: url))
            let name = url.path.replacingOccurrences(of: Fixture.directory.path + "/", with: "")
            tally.check(bytes, label: name)
            tally.check(
                generator.insertingTrailingCommas(into: bytes, atDepth: nil),
                label: "\(name), commas everywhere")
            for depth in 1...3 {
                tally.check(
                    generator.insertingTrailingCommas(into: bytes, atDepth: depth),
                    label: "\(name), commas at depth \(depth)")
            }
            for round in 0..<10 { tally.check(generator.mutate(bytes), label: "\(name), mutation \(round)") }
        }
        tally.recordMismatches()
        #expect(tally.bothAccepted >= fixtures.count)
    }

    /// The corpus `Tests/Fuzz/run-fuzzers.sh` grows, when one exists on this machine: inputs
    /// libFuzzer found interesting for our parser, now asked of Foundation too.
    @Test(.enabled(if: !JSONDifferentialTests.fuzzCorpus().isEmpty, "no .build-fuzz corpus; see FUZZING.md"))
    func fuzzCorpusAgreesWithFoundation() throws {
        var tally = DifferentialTally()
        for url in Self.fuzzCorpus() {
            let bytes = try [UInt8](Data(contentsOf: url))
            // The engine harness serves up to five documents split on NUL bytes; ask about each.
            let documents =
                url.path.contains("/engine/")
                ? bytes.split(separator: 0, omittingEmptySubsequences: false)
                    .map(Array.init) : [bytes]
            for (index, document) in documents.enumerated() {
                tally.check(document, label: "\(url.lastPathComponent) #\(index)")
            }
        }
        tally.recordMismatches()
        #expect(tally.checked > 0)
    }

    /// What the investigation for issue #14 found Foundation to accept on Swift 6.3.1 / Linux,
    /// kept as a table so a Foundation that changes its mind shows up here first.
    @Test(arguments: FoundationFinding.table)
    func foundationFindingsHold(finding: FoundationFinding) {
        var tally = DifferentialTally()
        let outcome = tally.check(finding.bytes, label: finding.label)
        #expect(outcome == finding.expected, "\(finding.label)")
    }

    @Test func weKeepTheZeroWidthNoBreakSpaceJSONSerializationDrops() throws {
        let text = "[\"\u{FEFF}a\", \"\\n\u{FEFF}b\"]"
        let ours = try JSONValue(parsing: text)
        #expect(ours[0]?.stringValue?.unicodeScalars.first == "\u{FEFF}")
        #expect(ours[1]?.stringValue?.unicodeScalars.map(\.value) == [0x0A, 0xFEFF, 0x62])
        // JSONDecoder keeps it too; only JSONSerialization takes it for a byte order mark.
        let decoded = try JSONDecoder().decode([String].self, from: Data(text.utf8))
        #expect(
            decoded.map { Array($0.unicodeScalars) }
                == [Array("\u{FEFF}a".unicodeScalars), Array("\n\u{FEFF}b".unicodeScalars)])
        let serialized = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
        #expect(
            serialized.map { Array($0.unicodeScalars) } == [Array("a".unicodeScalars), Array("\nb".unicodeScalars)])
    }

    // MARK: Inputs

    static func deepDocuments() -> [(String, [UInt8])] {
        var documents: [(String, [UInt8])] = []
        for depth in [255, 256, 257, 300, 511, 512, 513, 1_000] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let objects =
                String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
            let commas = String(repeating: "[", count: depth) + "1" + String(repeating: ",]", count: depth)
            let named = [
                ("\(depth) nested arrays", arrays), ("\(depth) nested objects", objects),
                ("\(depth) nested arrays with trailing commas", commas),
            ]
            documents += named.map { ($0.0, Array($0.1.utf8)) }
        }
        return documents
    }

    static func jsonFiles(under directory: URL) throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        let files = (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "json" }
        return files.sorted { $0.path < $1.path }
    }

    static func fuzzCorpus() -> [URL] {
        let root = Fixture.directory.deletingLastPathComponent().appendingPathComponent(".build-fuzz")
        return ["hal-documents", "engine"].flatMap { target -> [URL] in
            let corpus = root.appendingPathComponent(target).appendingPathComponent("corpus")
            let files = try? FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
            return (files ?? []).sorted { $0.path < $1.path }
        }
    }
}

/// A difference from Foundation we keep on purpose. Each one is listed, with its reason, under
/// "Which JSON the parser accepts" in the HAL documents and JSON guide (HALDocumentsAndJSON.md).
enum DeliberateDifference: String, CaseIterable, Sendable {
    /// Foundation transcodes UTF-16 and UTF-32 bodies (found by BOM or zero bytes). We refuse
    /// them with `.invalidUTF8`: RFC 8259 §8.1 requires UTF-8 between systems, and our error
    /// offsets count bytes of the body as received.
    case utf16Or32Refused
    /// Foundation nests 512 levels; we stop at 256 (`JSONParsingOptions.defaultMaximumDepth`),
    /// which keeps the recursion well inside the small stacks of Swift concurrency's threads.
    case nestingPast256Refused
    /// Foundation boxes integers from 2^63 to 2^64 - 1 as UInt64. `JSONValue` has no unsigned
    /// case, so they become the nearest Double, as every integer past `Int` does.
    case unsignedIntegerAsDouble
    /// Foundation keeps NSDecimalNumber (38 significant digits) for integers past 64 bits,
    /// 19-digit negative integers and long fractions. We keep `Int` where the text is an integer
    /// that fits, otherwise the nearest Double; values then agree to the Double's last place.
    case decimalAsIntOrDouble
    /// Foundation checks that a number fits a Double only when it builds the value, and never
    /// builds one that a later duplicate key replaces, so `{"a":1e400,"a":1}` passes there. We
    /// check each number as we read it: the text is wrong either way, and deferring the check
    /// until an object closes would cost every document for the sake of broken ones.
    case overflowUnderDuplicateKeyRefused
    /// `JSONSerialization` drops a raw U+FEFF that starts a string or follows an escape in one
    /// (it decodes each unescaped run as if it were a whole text with a byte order mark). The
    /// character is text the server wrote, `JSONDecoder` keeps it, and so do we.
    case zeroWidthNoBreakSpaceKept
    /// Foundation keeps one member of two whose names differ only in Unicode normalisation
    /// (`"\u00e9"` and `"e\u0301"`): its dictionaries compare keys with String's `==`. RFC 8259
    /// §8.3 compares names code unit by code unit, so they are two members, and we keep both.
    case normalisationVariantsKept
}

/// Which encoding a generated document is rewritten in, to reach ``DeliberateDifference/utf16Or32Refused``.
enum TextEncoding: CaseIterable, CustomStringConvertible {
    case utf16LE, utf16BE, utf32LE, utf32BE, utf16LEWithBOM, utf32BEWithBOM

    var description: String {
        switch self {
        case .utf16LE: "UTF-16LE"
        case .utf16BE: "UTF-16BE"
        case .utf32LE: "UTF-32LE"
        case .utf32BE: "UTF-32BE"
        case .utf16LEWithBOM: "UTF-16LE with BOM"
        case .utf32BEWithBOM: "UTF-32BE with BOM"
        }
    }

    func encode(_ utf8: [UInt8]) -> [UInt8] {
        let text = String(decoding: utf8, as: UTF8.self)
        let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE = text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8((scalar.value >> ($0 * 8)) & 0xFF) } }
        let utf32BE = text.unicodeScalars.flatMap { scalar in
            (0..<4).reversed().map { UInt8((scalar.value >> ($0 * 8)) & 0xFF) }
        }
        switch self {
        case .utf16LE: return utf16LE
        case .utf16BE: return utf16BE
        case .utf32LE: return utf32LE
        case .utf32BE: return utf32BE
        case .utf16LEWithBOM: return [0xFF, 0xFE] + utf16LE
        case .utf32BEWithBOM: return [0x00, 0x00, 0xFE, 0xFF] + utf32BE
        }
    }
}

/// How one input came out.
enum DifferentialOutcome: Equatable, Sendable, CustomStringConvertible {
    /// Both accepted with equal values; `differences` names representation differences met on the way.
    case bothAccepted(differences: Set<DeliberateDifference>)
    case bothRefused
    /// Foundation accepted and we refused, for a reason we keep.
    case refusedByUs(DeliberateDifference)
    case mismatch(String)

    static let accepted = DifferentialOutcome.bothAccepted(differences: [])

    var description: String {
        switch self {
        case .bothAccepted(let differences) where differences.isEmpty: "both accept"
        case .bothAccepted(let differences):
            "both accept (\(differences.map(\.rawValue).sorted().joined(separator: ", ")))"
        case .bothRefused: "both refuse"
        case .refusedByUs(let difference): "only Foundation accepts (\(difference.rawValue))"
        case .mismatch(let problem): "MISMATCH: \(problem)"
        }
    }
}

/// Runs inputs through both parsers and counts how they came out.
struct DifferentialTally {
    var checked = 0
    var bothAccepted = 0
    var bothRefused = 0
    var acceptedWithTrailingComma = 0
    var differences: [DeliberateDifference: Int] = [:]
    var mismatches: [String] = []

    @discardableResult
    mutating func check(_ bytes: [UInt8], label: String) -> DifferentialOutcome {
        checked += 1
        let outcome = Self.compare(bytes)
        switch outcome {
        case .bothAccepted(let found):
            bothAccepted += 1
            for difference in found { differences[difference, default: 0] += 1 }
            if Self.hasTrailingComma(bytes) { acceptedWithTrailingComma += 1 }
        case .bothRefused:
            bothRefused += 1
        case .refusedByUs(let difference):
            differences[difference, default: 0] += 1
        case .mismatch(let problem):
            mismatches.append("\(label): \(problem)\n  input: \(Self.show(bytes))")
        }
        return outcome
    }

    /// One issue per mismatch, up to a screenful; the count says how many there were in all.
    func recordMismatches(sourceLocation: SourceLocation = #_sourceLocation) {
        for mismatch in mismatches.prefix(10) {
            Issue.record(Comment(rawValue: mismatch), sourceLocation: sourceLocation)
        }
        if mismatches.count > 10 {
            Issue.record("\(mismatches.count) mismatches in \(checked) inputs", sourceLocation: sourceLocation)
        }
    }

    static func compare(_ bytes: [UInt8]) -> DifferentialOutcome {
        let data = Data(bytes)
        let ours = Result { () throws(JSONParsingError) in try JSONValue(parsing: data) }
        let theirs = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        switch (ours, theirs) {
        case (.success(var value), let object?):
            var found = Set<DeliberateDifference>()
            if let foundationsView = droppingFoundationsByteOrderMarks(bytes) {
                // Compared with what we read from the text Foundation saw; that we keep the
                // characters is weKeepTheZeroWidthNoBreakSpaceJSONSerializationDrops's business.
                found.insert(.zeroWidthNoBreakSpaceKept)
                do throws(JSONParsingError) {
                    value = try JSONValue(parsing: Data(foundationsView))
                } catch {
                    return .mismatch("without the U+FEFF Foundation drops, we refuse: \(error)")
                }
            }
            if let problem = difference(value, object, path: "$", found: &found) {
                return .mismatch("values differ: \(problem)")
            }
            // The bridge must read Foundation's graph the way our parser reads the text.
            guard let bridged = JSONValue(foundationObject: object) else {
                return .mismatch("JSONValue(foundationObject:) refused what JSONSerialization returned")
            }
            var ignored = Set<DeliberateDifference>()
            if let problem = difference(bridged, object, path: "$", found: &ignored) {
                return .mismatch("the Foundation bridge differs: \(problem)")
            }
            return .bothAccepted(differences: found)
        case (.failure(let error), nil):
            guard (0...bytes.count).contains(error.byteOffset), error.path.hasPrefix("$") else {
                return .mismatch("both refuse, but our error points nowhere: \(error)")
            }
            return .bothRefused
        case (.failure(let error), let object?):
            if error.code == .invalidUTF8, error.byteOffset == 0, looksLikeUTF16Or32(bytes) {
                return .refusedByUs(.utf16Or32Refused)
            }
            let foundationsDepths = JSONParsingOptions.defaultMaximumDepth + 1...512
            if error.code == .nestingTooDeep, foundationsDepths.contains(depth(of: object)) {
                return .refusedByUs(.nestingPast256Refused)
            }
            if error.code == .invalidNumber, overflowIsTheOnlyDifference(bytes, at: error.byteOffset) {
                return .refusedByUs(.overflowUnderDuplicateKeyRefused)
            }
            return .mismatch("Foundation accepts, we refuse: \(error)")
        case (.success(let value), nil):
            return .mismatch("we accept \(value), Foundation refuses")
        }
    }

    /// Whether the number at `offset` overflows a Double and, once it is 0, both parsers agree.
    /// Foundation accepted the original, so it never built that number: a later duplicate key
    /// replaced it.
    static func overflowIsTheOnlyDifference(_ bytes: [UInt8], at offset: Int) -> Bool {
        let numberBytes = Set(Array("+-.eE0123456789".utf8))
        guard offset < bytes.count else { return false }
        let end = bytes[offset...].firstIndex { !numberBytes.contains($0) } ?? bytes.count
        guard let number = Double(String(decoding: bytes[offset..<end], as: UTF8.self)), number.isInfinite else {
            return false
        }
        var patched = bytes
        patched.replaceSubrange(offset..<end, with: [UInt8(ascii: "0")])
        switch compare(patched) {
        case .bothAccepted, .refusedByUs(.overflowUnderDuplicateKeyRefused): return true
        default: return false
        }
    }

    /// Where our value and Foundation's object part, or nil when they agree.
    static func difference(
        _ ours: JSONValue, _ theirs: Any, path: String, found: inout Set<DeliberateDifference>
    ) -> String? {
        switch ours {
        case .null:
            return theirs is NSNull ? nil : "\(path): null vs \(theirs)"
        case .bool(let bool):
            guard let number = theirs as? NSNumber, !(theirs is String), isBoolean(number), number.boolValue == bool
            else {
                return "\(path): \(bool) vs \(theirs)"
            }
            return nil
        case .int, .double:
            guard let number = theirs as? NSNumber, !(theirs is String), !isBoolean(number) else {
                return "\(path): \(ours) vs \(theirs)"
            }
            return numberDifference(ours, number, path: path, found: &found)
        case .string(let string):
            guard let other = theirs as? String, sameText(string, other) else {
                return "\(path): \(ours) vs \(theirs)"
            }
            return nil
        case .array(let array):
            guard let other = theirs as? [Any], other.count == array.count else {
                return "\(path): array of \(array.count) vs \(theirs)"
            }
            for (index, element) in array.enumerated() {
                if let problem = difference(element, other[index], path: "\(path)[\(index)]", found: &found) {
                    return problem
                }
            }
            return nil
        case .object(let object):
            // Foundation's dictionary holds one entry for names that String's == calls equal:
            // group ours the same way, first spelling first.
            var groups: [(key: String, values: [JSONValue])] = []
            var groupOfName: [String: Int] = [:]
            for (key, value) in object.members {
                if let group = groupOfName[key] {
                    groups[group].values.append(value)
                } else {
                    groupOfName[key] = groups.count
                    groups.append((key, [value]))
                }
            }
            guard let other = theirs as? [String: Any], other.count == groups.count else {
                return "\(path): object with keys \(object.keys) vs \(theirs)"
            }
            for (key, values) in groups {
                guard let index = other.index(forKey: key) else {
                    return "\(path): Foundation has no key \(key.debugDescription)"
                }
                let (otherKey, otherValue) = other[index]
                // Keys equal under String's == may still be spelled differently; both keep the first.
                guard sameText(key, otherKey) else {
                    return "\(path): key \(key.debugDescription) vs \(otherKey.debugDescription)"
                }
                guard values.count > 1 else {
                    if let problem = difference(values[0], otherValue, path: "\(path).\(key)", found: &found) {
                        return problem
                    }
                    continue
                }
                // Foundation keeps the value written last of them all; our members keep their
                // own, positioned where each spelling first appeared, so the text order is gone:
                // Foundation's must be one of ours.
                found.insert(.normalisationVariantsKept)
                var problems: [String] = []
                for value in values {
                    var foundHere = found
                    if let problem = difference(value, otherValue, path: "\(path).\(key)", found: &foundHere) {
                        problems.append(problem)
                    } else {
                        found = foundHere
                        break
                    }
                }
                if problems.count == values.count { return problems.joined(separator: "; ") }
            }
            return nil
        }
    }

    /// Equal scalars, not String's ==, which would call é and e + U+0301 equal.
    static func sameText(_ ours: String, _ theirs: String) -> Bool {
        Array(ours.unicodeScalars) == Array(theirs.unicodeScalars)
    }

    /// The input as `JSONSerialization` reads it: without a raw U+FEFF (EF BB BF) where a string
    /// or the text after an escape in one begins, since it decodes each unescaped run as a text of
    /// its own and takes that character for a byte order mark. Nil when there is none to drop.
    static func droppingFoundationsByteOrderMarks(_ bytes: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        var dropped = false
        var index = 0
        var inString = false
        var runStarts = false
        while index < bytes.count {
            if inString, runStarts, bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]) {
                index += 3
                dropped = true
            }
            runStarts = false
            guard index < bytes.count else { break }
            let byte = bytes[index]
            var length = 1
            if !inString {
                inString = byte == UInt8(ascii: "\"")
                runStarts = inString
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte == UInt8(ascii: "\\") {
                length = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "u") ? 6 : 2
                runStarts = true
            }
            let end = min(index + length, bytes.count)
            result += bytes[index..<end]
            index = end
        }
        return dropped ? result : nil
    }

    /// Numbers are compared by what Foundation's box can hold, never through a lossy common type.
    static func numberDifference(
        _ ours: JSONValue, _ theirs: NSNumber, path: String, found: inout Set<DeliberateDifference>
    ) -> String? {
        let mismatch = "\(path): \(ours) vs \(type(of: theirs)) \(theirs) (\(String(cString: theirs.objCType)))"
        if let decimal = theirs as? NSDecimalNumber {
            found.insert(.decimalAsIntOrDouble)
            switch ours {
            case .int(let int):
                return Decimal(int) == decimal.decimalValue ? nil : mismatch
            case .double(let double):
                // The decimal holds the text to 38 digits; rounding it to a Double may land one
                // place away from rounding the text itself, never further.
                guard let nearest = Double(decimal.description) else { return mismatch }
                return double == nearest || abs(double - nearest) <= nearest.ulp ? nil : mismatch
            default:
                return mismatch
            }
        }
        switch String(cString: theirs.objCType) {
        case "d", "f":
            // Bit patterns, so -0.0 and 0.0 are told apart.
            guard case .double(let double) = ours, double.bitPattern == theirs.doubleValue.bitPattern else {
                return mismatch
            }
            return nil
        case "Q", "L":
            let unsigned = theirs.uint64Value
            if unsigned > UInt64(Int.max) {
                found.insert(.unsignedIntegerAsDouble)
                guard case .double(let double) = ours, double == Double(unsigned) else { return mismatch }
                return nil
            }
            guard case .int(let int) = ours, UInt64(exactly: int) == unsigned else { return mismatch }
            return nil
        default:
            guard case .int(let int) = ours, Int64(int) == theirs.int64Value else { return mismatch }
            return nil
        }
    }

    static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }

    /// The same test the parser makes: JSON text starts with ASCII, so UTF-16 and UTF-32 have a
    /// zero in byte 0 or 1, and their BOMs start with 0xFE or 0xFF, which UTF-8 never uses.
    static func looksLikeUTF16Or32(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        return bytes[0] == 0 || bytes[1] == 0 || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
    }

    static func depth(of object: Any) -> Int {
        if let array = object as? [Any] { return 1 + (array.map(depth(of:)).max() ?? 0) }
        if let dictionary = object as? [String: Any] { return 1 + (dictionary.values.map(depth(of:)).max() ?? 0) }
        return 0
    }

    /// A comma followed, past whitespace, by `]` or `}` outside strings.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var strings = JSONStringScanner()
        var afterComma = false
        for byte in bytes {
            if strings.continuesString(with: byte) { continue }
            switch byte {
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if afterComma { return true }
            case UInt8(ascii: ","):
                afterComma = true
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "\""):
                strings.inString = true
            default:
                break
            }
            afterComma = false
        }
        return false
    }

    /// The input as Swift-like text: printable ASCII as is, everything else as `\xNN`.
    static func show(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(300).map { byte -> String in
            switch byte {
            case 0x20..<0x7F where byte != UInt8(ascii: "\\"): String(UnicodeScalar(byte))
            case UInt8(ascii: "\\"): "\\\\"
            case 0x0A: "\\n"
            case 0x09: "\\t"
            case 0x0D: "\\r"
            default: "\\x" + String(byte, radix: 16, uppercase: true)
            }
        }.joined()
        return "\"" + shown + (bytes.count > 300 ? "\"… (\(bytes.count) bytes)" : "\"")
    }
}

/// One row of the findings table: an input and how both parsers must treat it.
struct FoundationFinding: Sendable, CustomTestStringConvertible {
    let label: String
    let bytes: [UInt8]
    let expected: DifferentialOutcome

    var testDescription: String { "\(label) → \(expected)" }

    init(_ text: String, _ expected: DifferentialOutcome, label: String? = nil) {
        self.label = label ?? text.debugDescription
        self.bytes = Array(text.utf8)
        self.expected = expected
    }

    init(bytes: [UInt8], _ expected: DifferentialOutcome, label: String) {
        self.label = label
        self.bytes = bytes
        self.expected = expected
    }

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    static let table: [FoundationFinding] = [
        // Trailing commas: after the last element or member, at any depth, with whitespace around.
        FoundationFinding(#"{"a":1,}"#, .accepted),
        FoundationFinding("[1,2,]", .accepted),
        FoundationFinding("[1,2 , ]", .accepted),
        FoundationFinding("[1,2,\n\t]", .accepted),
        FoundationFinding(#"{"a":{"b":[1,],},}"#, .accepted),
        FoundationFinding("[[],{},]", .accepted),
        FoundationFinding(#" [1,] "#, .accepted),
        // ...but only after something.
        FoundationFinding("[,]", .bothRefused),
        FoundationFinding("{,}", .bothRefused),
        FoundationFinding("[,1]", .bothRefused),
        FoundationFinding("[1,,2]", .bothRefused),
        FoundationFinding("[1,,]", .bothRefused),
        FoundationFinding(#"{"a":1,,}"#, .bothRefused),
        FoundationFinding("[1,}", .bothRefused),
        FoundationFinding("[1,]]", .bothRefused),
        FoundationFinding("[1,", .bothRefused),
        FoundationFinding("[1,2, ", .bothRefused),
        // Top-level scalars (with .fragmentsAllowed; without it Foundation refuses them all).
        FoundationFinding("1", .accepted),
        FoundationFinding(#" "s" "#, .accepted),
        FoundationFinding("null", .accepted),
        FoundationFinding("", .bothRefused),
        FoundationFinding(" ", .bothRefused),
        // Numbers.
        FoundationFinding("[-0]", .accepted),
        FoundationFinding("[-0.0]", .accepted),
        FoundationFinding("[0e0]", .accepted),
        FoundationFinding("[1E+2]", .accepted),
        FoundationFinding("[01]", .bothRefused),
        FoundationFinding("[-01]", .bothRefused),
        FoundationFinding("[1.]", .bothRefused),
        FoundationFinding("[.5]", .bothRefused),
        FoundationFinding("[+1]", .bothRefused),
        FoundationFinding("[1e]", .bothRefused),
        FoundationFinding("[-]", .bothRefused),
        FoundationFinding("[0x10]", .bothRefused),
        FoundationFinding("[1e400]", .bothRefused),
        FoundationFinding("[1.7976931348623159e308]", .bothRefused),
        FoundationFinding("[1e-400]", .accepted),
        FoundationFinding("[9223372036854775807]", .accepted),
        FoundationFinding("[9223372036854775808]", .bothAccepted(differences: [.unsignedIntegerAsDouble])),
        FoundationFinding("[18446744073709551615]", .bothAccepted(differences: [.unsignedIntegerAsDouble])),
        FoundationFinding("[18446744073709551616]", .bothAccepted(differences: [.decimalAsIntOrDouble])),
        FoundationFinding("[-9223372036854775808]", .bothAccepted(differences: [.decimalAsIntOrDouble])),
        FoundationFinding("[123456789012345678901234567890]", .bothAccepted(differences: [.decimalAsIntOrDouble])),
        FoundationFinding("[1.000000000000000000001]", .bothAccepted(differences: [.decimalAsIntOrDouble])),
        FoundationFinding("[1" + String(repeating: "0", count: 200) + "]", .accepted, label: "1e200 written out"),
        FoundationFinding("[1" + String(repeating: "0", count: 400) + "]", .bothRefused, label: "1e400 written out"),
        FoundationFinding("[NaN]", .bothRefused),
        FoundationFinding("[Infinity]", .bothRefused),
        FoundationFinding("[-Infinity]", .bothRefused),
        // Strings.
        FoundationFinding(#"["\ud83d\ude00"]"#, .accepted),
        FoundationFinding(#"["\u0000"]"#, .accepted),
        FoundationFinding(#"["\uFFFF"]"#, .accepted),
        FoundationFinding(#"["\ud800"]"#, .bothRefused),
        FoundationFinding(#"["\udc00"]"#, .bothRefused),
        FoundationFinding(#"["\ud800\u0041"]"#, .bothRefused),
        FoundationFinding(#"["\uZZZZ"]"#, .bothRefused),
        FoundationFinding(#"["\x"]"#, .bothRefused),
        FoundationFinding(#"["\'"]"#, .bothRefused),
        FoundationFinding(#"["\U00e9"]"#, .bothRefused),
        FoundationFinding("[\"a\tb\"]", .bothRefused),
        FoundationFinding("[\"a\u{1}b\"]", .bothRefused),
        FoundationFinding("[\"a\u{7F}b\"]", .accepted),
        FoundationFinding(
            bytes: Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8), .bothRefused,
            label: "bad UTF-8"),
        FoundationFinding(
            bytes: Array("[\"".utf8) + [0xC0, 0xAF] + Array("\"]".utf8), .bothRefused, label: "overlong"),
        FoundationFinding(
            bytes: Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8), .bothRefused,
            label: "UTF-8 surrogate"),
        FoundationFinding(
            bytes: Array("[\"".utf8) + [0xEF, 0xBF, 0xBF] + Array("\"]".utf8), .accepted,
            label: "UTF-8 noncharacter"),
        FoundationFinding(
            bytes: Array("[\"".utf8) + [0x00] + Array("\"]".utf8), .bothRefused,
            label: "raw NUL in string"),
        FoundationFinding(
            "[\"\u{FEFF}a\"]", .bothAccepted(differences: [.zeroWidthNoBreakSpaceKept]),
            label: "raw U+FEFF starting a string"),
        FoundationFinding(
            "[\"\\n\u{FEFF}a\"]", .bothAccepted(differences: [.zeroWidthNoBreakSpaceKept]),
            label: "raw U+FEFF after an escape"),
        FoundationFinding(
            "{\"\u{FEFF}k\":1}", .bothAccepted(differences: [.zeroWidthNoBreakSpaceKept]),
            label: "raw U+FEFF starting a key"),
        FoundationFinding(
            "[\"\u{FEFF}\u{FEFF}a\"]", .bothAccepted(differences: [.zeroWidthNoBreakSpaceKept]),
            label: "two raw U+FEFF starting a string"),
        FoundationFinding("[\"a\u{FEFF}\"]", .accepted, label: "raw U+FEFF inside a string"),
        FoundationFinding(#"["\uFEFFa"]"#, .accepted),
        // Objects.
        FoundationFinding(#"{"a":1,"b":2,"a":3}"#, .accepted),
        FoundationFinding(#"{"a":[1e400],"a":1}"#, .refusedByUs(.overflowUnderDuplicateKeyRefused)),
        FoundationFinding(#"{"a":1,"a":1e400}"#, .bothRefused),
        FoundationFinding(#"{"a":"\ud800","a":1}"#, .bothRefused),
        FoundationFinding(
            "{\"\u{E9}\":1,\"e\u{301}\":2}", .bothAccepted(differences: [.normalisationVariantsKept]),
            label: "canonically equal keys"),
        FoundationFinding("{a:1}", .bothRefused),
        FoundationFinding("{'a':1}", .bothRefused),
        FoundationFinding("{1:1}", .bothRefused),
        FoundationFinding(#"{"a"}"#, .bothRefused),
        // Whitespace, comments and other JSON5 extras.
        FoundationFinding("[\r\t1\r\n]", .accepted),
        FoundationFinding("[\u{0B}1]", .bothRefused),
        FoundationFinding("[\u{0C}1]", .bothRefused),
        FoundationFinding("[\u{A0}1]", .bothRefused),
        FoundationFinding("[1]//c", .bothRefused),
        FoundationFinding("[1 /*c*/]", .bothRefused),
        FoundationFinding("['a']", .bothRefused),
        FoundationFinding("[1] x", .bothRefused),
        FoundationFinding("[] []", .bothRefused),
        FoundationFinding(bytes: Array("[1]".utf8) + [0x00], .bothRefused, label: "NUL after the value"),
        // Byte order marks and encodings.
        FoundationFinding(bytes: bom + Array(#"{"a":1,}"#.utf8), .accepted, label: "UTF-8 BOM"),
        FoundationFinding(bytes: bom + Array("1".utf8), .accepted, label: "UTF-8 BOM before a scalar"),
        FoundationFinding(bytes: bom, .bothRefused, label: "UTF-8 BOM alone"),
        FoundationFinding(bytes: bom + bom + Array("[1]".utf8), .bothRefused, label: "two UTF-8 BOMs"),
        FoundationFinding(bytes: Array(" ".utf8) + bom + Array("[1]".utf8), .bothRefused, label: "BOM after a space"),
        FoundationFinding(bytes: [0xEF, 0xBB] + Array("[1]".utf8), .bothRefused, label: "partial BOM"),
        FoundationFinding(
            bytes: TextEncoding.utf16LE.encode(Array("[1,]".utf8)), .refusedByUs(.utf16Or32Refused),
            label: "UTF-16LE"),
        FoundationFinding(
            bytes: TextEncoding.utf16BE.encode(Array("[1]".utf8)), .refusedByUs(.utf16Or32Refused),
            label: "UTF-16BE"),
        FoundationFinding(
            bytes: TextEncoding.utf32LE.encode(Array("[1]".utf8)), .refusedByUs(.utf16Or32Refused),
            label: "UTF-32LE"),
        FoundationFinding(
            bytes: TextEncoding.utf16LEWithBOM.encode(Array("[1]".utf8)) + [0x20],
            .refusedByUs(.utf16Or32Refused), label: "UTF-16LE with BOM and a dangling byte"),
        FoundationFinding(
            bytes: TextEncoding.utf32BEWithBOM.encode(Array("[1]".utf8)), .refusedByUs(.utf16Or32Refused),
            label: "UTF-32BE with BOM"),
        // Nesting.
        FoundationFinding(
            String(repeating: "[", count: 256) + String(repeating: "]", count: 256), .accepted,
            label: "256 nested arrays"),
        FoundationFinding(
            String(repeating: "[", count: 257) + String(repeating: "]", count: 257),
            .refusedByUs(.nestingPast256Refused), label: "257 nested arrays"),
        FoundationFinding(
            String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
            .refusedByUs(.nestingPast256Refused), label: "512 nested arrays"),
        FoundationFinding(
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513), .bothRefused,
            label: "513 nested arrays"),
    ]
}
