import HalleyHAL

extension HalleyError {
    /// Every failing property and rule, when ``code`` is ``Code/formValidation``.
    public var formValidationError: HALFormValidationError? { underlying as? HALFormValidationError }
}
