import Halley

/// Requesters beyond URLSession's, by name.
func probeRequester(named name: String) -> (any RequesterInterface)? {
    name == "curl" ? try? CurlRequester() : nil
}
