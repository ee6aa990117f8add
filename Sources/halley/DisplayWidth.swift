/// How many terminal columns text takes, for aligning the tool's tables.
///
/// Counting characters lines up only Latin text: a CJK ideograph or a fullwidth letter fills
/// two columns of a terminal, a combining accent or a zero-width space none. This follows
/// what terminals do (the East Asian Width property and `wcwidth`), close enough for a table;
/// it has no data of its own beyond the wide ranges below.
enum DisplayWidth {
    /// The columns `text` takes.
    static func of(_ text: String) -> Int {
        var width = 0
        for scalar in text.unicodeScalars { width += of(scalar) }
        return width
    }

    /// The columns one scalar takes: 0, 1 or 2.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        // Printable ASCII first: most of every table.
        if scalar.value >= 0x20 && scalar.value < 0x7F { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        // Hangul vowels and final consonants join the syllable before them.
        if (0x1160...0x11FF).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value) { return 0 }
        if scalar.properties.isEmojiPresentation || isWide(scalar.value) { return 2 }
        return 1
    }

    /// Code points whose East Asian Width is Wide or Fullwidth (Unicode 15), in order, as
    /// closed ranges. Emoji shown as pictures are found by their property instead.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul leading consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi radicals, CJK symbols and punctuation
        0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility jamo, CJK strokes, enclosed
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // kana supplement and extensions, Nüshu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B to F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G and H
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        // Binary search: the first range that does not end before `value`.
        var low = 0
        var high = wideRanges.count
        while low < high {
            let middle = (low + high) / 2
            if wideRanges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < wideRanges.count && wideRanges[low].contains(value)
    }
}
