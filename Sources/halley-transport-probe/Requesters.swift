import Halley

/// Requesters beyond URLSession's, by name.
func probeRequester(named name: String) -> (any RequesterInterface & Sendable)? {
    name == "curl" ? try? CurlRequester() : nil
}
