import Foundation

/// A small deterministic generator (SplitMix64): the same sequence on every run, so a random
/// cancellation point or a generated input that failed can be found again from its seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound`. The modulo bias does not matter for picking test inputs.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// `true` `percent` times in 100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One of `elements`, which must not be empty.
    public mutating func pick<Element>(_ elements: [Element]) -> Element { elements[below(elements.count)] }
}
