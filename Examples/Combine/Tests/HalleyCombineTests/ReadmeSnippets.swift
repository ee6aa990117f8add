// swift-format-ignore-file
// README.md's "Combine" block, verbatim between `// snippet` and `// end snippet` (the root
// package's SnippetSyncTests holds it to the README); ReadmeSnippetTests below runs it.
import Foundation
import Halley
import HalleyCombine
import OpenCombine
import Testing

// snippet README.md "Combine"
final class ContactViewModel {
    let resourceManager: ResourceManager
    var cancellables = Set<AnyCancellable>()

    init(resourceManager: ResourceManager) { self.resourceManager = resourceManager }

    func load(_ request: HalleyRequest<Contact>) {
        resourceManager
            .request(request)                                 // the publisher: a synchronous context
            .sink { _ in } receiveValue: { contact in show(contact) }
            .store(in: &cancellables)                         // cancelling cancels every request in flight
    }
}
// end snippet

/// What the snippet's view model showed: the test's stand-in for an app's screen.
let shown = Guarded<[String]>([])
let somethingShown = AsyncFlag()

func show(_ contact: Contact) {
    shown.mutate { $0.append(contact.name) }
    somethingShown.raise()
}

@Suite struct ReadmeSnippetTests {
    @Test func theViewModelLoadsAContact() async throws {
        let (manager, _) = PublisherTests.manager("readme")
        let model = ContactViewModel(resourceManager: manager)
        model.load(HalleyRequest<Contact>(url: "\(PublisherTests.api)/readme/contacts/1"))
        #expect(model.cancellables.count == 1)
        await somethingShown.wait()
        #expect(shown.current == ["Ann"])
    }
}
