import Foundation

/// The original Halley's requester: a ``ResourceRequester`` that also answers Halley's
/// completion-handler call, so a requester written for Halley plugs in unchanged.
///
/// New code implements ``ResourceRequester``, whose one requirement the compiler checks.
/// This protocol exists for the original shape, ``requestResource(at:completion:)``, so an
/// existing requester (an Alamofire class, say) keeps compiling and working:
/// `ResourceManager(requester: AlamofireRequester())`. Here ``ResourceRequester/response(for:)``
/// has a default, the adapter that calls ``requestResource(at:completion:)``. Such a requester
/// may be a plain, non-`Sendable` class: the manager never calls it from two threads at once,
/// and requests still overlap because the call returns at once; cancelling the calling task
/// calls the container's `cancelRequest()`. It sees only `GET` URLs and reports only a body,
/// so its responses count as `200` from the URL asked for.
///
/// A requester written against this protocol's `async` call (Halley for Swift 0.2.0) keeps
/// compiling too: implementing ``ResourceRequester/response(for:)`` alone is enough.
///
/// Both request calls have defaults here, so Swift accepts a conformance that implements
/// neither. The defaults go one way only: the adapter calls
/// ``requestResource(at:completion:)``, whose own default calls nothing and completes with
/// ``UnimplementedRequesterError``. So such a type fails its first request with that error,
/// and an `async` requester does not answer the completion call. Conform to
/// ``ResourceRequester`` instead and the compiler catches it.
public protocol RequesterInterface: ResourceRequester {
    /// Starts fetching `url` and calls `completion` exactly once with the body or an error:
    /// the original Halley's requester shape.
    ///
    /// - Returns: A handle whose `cancelRequest()` stops the request.
    func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface
}

/// A request in flight that a completion-handler requester can cancel; the original Halley's
/// `RequestContainerInterface`. `Sendable`, because cancellation arrives from whichever task
/// is cancelled (Alamofire's `DataRequest` is).
public protocol RequestContainerInterface: Sendable {
    /// Cancels the request; its completion should then report an error.
    func cancelRequest()
}

/// A requester was asked for something it does not implement: the engine's first request
/// to a type that implements neither ``ResourceRequester/response(for:)`` nor
/// ``RequesterInterface/requestResource(at:completion:)`` (Swift accepts the conformance,
/// since each has a default), or a completion call to an `async` requester.
///
/// ```swift
/// struct Forgotten: RequesterInterface, Sendable {}
/// // ResourceManager(requester: Forgotten()).document(at: url) throws a HalleyError whose
/// // underlying error is UnimplementedRequesterError(requester: "Forgotten")
/// ```
public struct UnimplementedRequesterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requester's type name.
    public let requester: String
    /// Whether only the completion call is missing: the requester may implement
    /// ``ResourceRequester/response(for:)``, which nothing has called.
    let completionOnly: Bool
    /// The requester's type, to tell its own missing call from one it passed on.
    let type: ObjectIdentifier?

    /// Creates the error for a requester type's name that implements neither requirement.
    public init(requester: String) {
        self.init(requester: requester, completionOnly: false, type: nil)
    }

    init(requester: String, completionOnly: Bool, type: ObjectIdentifier?) {
        self.requester = requester
        self.completionOnly = completionOnly
        self.type = type
    }

    /// The error of a requester type whose completion call nothing answers.
    static func completionCall(of requester: Any.Type) -> UnimplementedRequesterError {
        UnimplementedRequesterError(
            requester: String(reflecting: requester), completionOnly: true, type: ObjectIdentifier(requester))
    }

    /// Whether this is the requester type's own completion call going unanswered (not one of
    /// a requester it called).
    func isCompletionCall(of requester: Any.Type) -> Bool {
        completionOnly && type == ObjectIdentifier(requester)
    }

    /// One sentence naming the type and what it must implement.
    public var description: String {
        completionOnly
            ? "\(requester) does not implement requestResource(at:completion:), the original Halley's completion call:"
                + " call its response(for:) instead"
            : "\(requester) implements neither response(for:) nor requestResource(at:completion:) of RequesterInterface:"
                + " implement one of them"
    }
}
