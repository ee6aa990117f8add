import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Each default of the request policy, read through the public API, is the documented value;
/// each field set through its own property is the same as set through the policy (or the key
/// path the dynamic member lookup takes).
@Suite struct RequestPolicyDefaultsTests {
    @Test func aNewConfigurationHoldsTheDocumentedDefaults() {
        let configuration = ResourceManager.Configuration()
        #expect(configuration.maxConcurrency == 8)
        #expect(configuration.retryPolicy == .none)
        #expect(configuration.requestTimeout == .seconds(60))
        #expect(configuration.credentialHeaders == ["authorization", "cookie", "proxy-authorization"])
        #expect(configuration.headers.isEmpty)
        #expect(configuration.variables.isEmpty)
        #expect(configuration.allowedOrigins.isEmpty)
        #expect(configuration.observer == nil)
        #expect(configuration.configureRequest == nil)
        #expect(configuration.validator == nil)
        #expect(configuration.fallback == nil)
        #expect(configuration.acceptsForms == nil)
        // The policy holds them as set values, so a call's options lay over them.
        #expect(configuration.policy.maxConcurrency == 8)
        #expect(configuration.policy.retryPolicy == RetryPolicy.none)
        #expect(configuration.policy.requestTimeout == .seconds(60))
    }

    /// A call sets nothing of its own: every replace field is `nil`, "the manager's".
    @Test func newOptionsSetNothing() {
        let options = CallOptions()
        #expect(options.maxConcurrency == nil)
        #expect(options.retryPolicy == nil)
        #expect(options.requestTimeout == nil)
        #expect(options.acceptsForms == nil)
        #expect(options.headers.isEmpty)
        #expect(options.credentialHeaders.isEmpty)
        #expect(options.observer == nil)
    }

    /// With the policy replaced by an empty one, the configuration and the pipeline fall back
    /// to the same values: 8 in flight, no retries, and no attempt limit.
    @Test func anEmptyPolicyFallsBackToTheSameDefaults() async throws {
        var configuration = ResourceManager.Configuration()
        configuration.policy = RequestPolicy()
        #expect(configuration.maxConcurrency == 8)
        #expect(configuration.retryPolicy == .none)
        #expect(configuration.requestTimeout == nil)

        for configuration in [ResourceManager.Configuration(), configuration] {
            let requester = InMemoryRequester(latency: .milliseconds(20))
            _ = await Graph.tree(depth: 1, fanOut: 24, into: requester)
            let manager = ResourceManager(requester: requester, configuration: configuration)
            _ = try await manager.resource(from: Graph.url("/n"), includes: ["[children]"])
            #expect(await requester.maxInFlight == 8)
            #expect(await requester.requestCount == 25)
        }
    }

    /// A value for every field.
    private static let sample: RequestPolicy = {
        var policy = RequestPolicy()
        policy.headers = ["X-App": "1"]
        policy.variables = ["page": 2]
        policy.credentialHeaders = ["x-api-key"]
        policy.allowedOrigins = [Origin(Graph.url("/"))]
        policy.requestTimeout = .seconds(5)
        policy.retryPolicy = RetryPolicy(maxAttempts: 3)
        policy.maxConcurrency = 2
        policy.acceptsForms = true
        policy.observer = { _ in }
        policy.configureRequest = { _ in }
        policy.validator = { _, _ in }
        policy.fallback = { _, _ in nil }
        return policy
    }()

    /// Copies the fields both layers declare alike, reading and writing only the layers' own
    /// properties.
    private static func copyThroughProperties<Source: RequestPolicyLayer, Target: RequestPolicyLayer>(
        _ source: Source, to target: inout Target
    ) {
        target.headers = source.headers
        target.variables = source.variables
        target.credentialHeaders = source.credentialHeaders
        target.allowedOrigins = source.allowedOrigins
        target.requestTimeout = source.requestTimeout
        target.acceptsForms = source.acceptsForms
        target.observer = source.observer
        target.configureRequest = source.configureRequest
        target.validator = source.validator
        target.fallback = source.fallback
    }

    /// Reading and writing every field through a configuration's properties (from the
    /// policy of one, into another's) is reading and writing its policy.
    @Test func aConfigurationsPropertiesAreItsPolicysFields() {
        var source = ResourceManager.Configuration()
        source.policy = Self.sample
        var copy = ResourceManager.Configuration()
        copy.policy = RequestPolicy()
        Self.copyThroughProperties(source, to: &copy)
        copy.retryPolicy = source.retryPolicy
        copy.maxConcurrency = source.maxConcurrency
        #expect(Self.values(copy.policy) == Self.values(Self.sample))
        #expect(copy.policy.observer != nil && copy.policy.configureRequest != nil)
        #expect(copy.policy.validator != nil && copy.policy.fallback != nil)

        // The key path code written for 0.2.0 used reaches the same fields.
        #expect(source[dynamicMember: \.headers] == source.headers)
        source[dynamicMember: \.requestTimeout] = .seconds(9)
        #expect(source.requestTimeout == .seconds(9))
    }

    /// The same for a call's options, whose replace fields are `nil` for "the manager's".
    @Test func optionsPropertiesAreTheirPolicysFields() {
        var source = CallOptions()
        source.policy = Self.sample
        var copy = CallOptions()
        Self.copyThroughProperties(source, to: &copy)
        copy.retryPolicy = source.retryPolicy
        copy.maxConcurrency = source.maxConcurrency
        #expect(Self.values(copy.policy) == Self.values(Self.sample))
        #expect(copy.policy.validator != nil && copy.policy.fallback != nil)
        copy.maxConcurrency = nil
        #expect(copy.policy.maxConcurrency == nil, "nil is the manager's again")
    }

    /// The policy's comparable fields, as one value.
    private static func values(_ policy: RequestPolicy) -> PolicyValues {
        PolicyValues(
            headers: policy.headers, variables: policy.variables, credentialHeaders: policy.credentialHeaders,
            allowedOrigins: policy.allowedOrigins, requestTimeout: policy.requestTimeout,
            retryPolicy: policy.retryPolicy, maxConcurrency: policy.maxConcurrency, acceptsForms: policy.acceptsForms)
    }

    private struct PolicyValues: Equatable {
        let headers: HeaderFields
        let variables: [String: TemplateValue]
        let credentialHeaders: Set<String>
        let allowedOrigins: Set<Origin>
        let requestTimeout: Duration?
        let retryPolicy: RetryPolicy?
        let maxConcurrency: Int?
        let acceptsForms: Bool?
    }
}
