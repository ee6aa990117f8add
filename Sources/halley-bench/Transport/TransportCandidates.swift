import Halley

extension TransportScenario {
    /// Requesters measured after URLSession's.
    static var extraCandidates: [Candidate] { [] }
}
