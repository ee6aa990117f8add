import Foundation
import HalleyHAL

// The user-facing words of a form's validation failure, by the rules of HalleyHAL's
// `ErrorWording` (LocalizedErrors.swift there says what each part is for).

extension HALFormValidationError: UserFacingError {
    /// `The values of item and quantity are not valid.`, with each failure as the reason.
    package func words(at url: URL?) -> ErrorWords {
        let names = properties
        let description =
            names.count == 1
            ? "The value of \(names[0]) is not valid."
            : "The values of \(ErrorWording.spokenList(names)) are not valid."
        let reasons = failures.compactMap { failure in ErrorWording.shown("for \(failure.property): \(failure.message)")
        }
        return ErrorWords(
            description: description,
            reason: reasons.isEmpty
                ? "They break the form's rules." : ErrorWording.sentence(reasons.joined(separator: "; ")),
            suggestion: "Correct the values and try again.")
    }
}

extension HALFormValidationError: LocalizedError {
    /// `The values of item and quantity are not valid.`
    public var errorDescription: String? { words(at: nil).description }
    /// Each failing property and what is wrong with its value.
    public var failureReason: String? { words(at: nil).reason }
    /// `Correct the values and try again.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}
