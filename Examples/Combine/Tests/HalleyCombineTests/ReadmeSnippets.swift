// swift-format-ignore-file
// A view model as an app migrating from the original Halley writes it (README.md showed it
// until the README became a first page; MigratingFromHalley.md lists the publishers), and a
// test that runs it.
import Foundation
import Halley
import HalleyCombine
import OpenCombine
import Testing

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
