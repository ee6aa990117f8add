import Foundation
import HalleyHAL

extension FollowChain {
    /// A HAL-FORMS template of the resource at the end of the chain, to read or submit.
    ///
    /// ```swift
    /// let orders = manager.entry("https://api.example.com/").follow("orders")
    /// let create = try await orders.form("default").get()          // the HALForm
    /// let created = try await orders.form("default").submit(values: ["item": "book", "quantity": 2])
    /// created.location                                            // where the new order lives
    /// ```
    ///
    /// The chain runs with ``RequestPolicy/acceptsForms`` set, so every hop asks for
    /// `application/prs.hal-forms+json` (a template of an embedded resource is only there when
    /// its container was served as HAL-FORMS). `"default"`, the default key, is the default
    /// template: the one keyed `default`, else the first. A key the resource does not have is
    /// ``HalleyError/Code/missingForm`` listing the keys it has; a malformed template is
    /// ``HalleyError/Code/invalidDocument`` with the recorded problem.
    public func form(_ key: String = "default") -> FormStep {
        var options = self.options
        options.acceptsForms = true
        return FormStep(chain: with(options: options), key: key)
    }

    /// A template at the end of a follow chain: nothing is fetched until ``get()``,
    /// ``resource()`` or a `submit`.
    public struct FormStep: Sendable {
        /// The chain, asking for HAL-FORMS.
        public let chain: FollowChain
        /// The template's key.
        public let key: String

        /// The template.
        public func get() async throws -> HALForm {
            try await resource().form(key)
        }

        /// The resource holding the template, as it arrived.
        public func resource() async throws -> HALResource {
            try await chain.resource()
        }

        /// Follows the chain, then checks and sends `values` as
        /// ``ResourceManager/submit(_:of:values:options:)`` does, with the chain's options.
        @discardableResult
        public func submit(values: [String: JSONValue] = [:]) async throws -> ActionResponse {
            let resource = try await resource()
            return try await chain.manager.submit(
                try resource.form(key), of: resource, values: values, options: chain.options)
        }

        /// Follows the chain, then checks and sends the encoded `value` as
        /// ``ResourceManager/submit(_:of:value:encoder:options:)`` does.
        @discardableResult
        public func submit<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) async throws
            -> ActionResponse
        {
            try await submit(values: try ResourceManager.formValues(of: value, encoder: encoder))
        }
    }
}
