// What the linked files name of the rest of Halley, declared here as the minimum that lets them
// compile alone: only the names, since nothing here runs.

/// Halley's URLSessionRequester: URLSessionChallenges.swift extends it.
public struct URLSessionRequester {}
