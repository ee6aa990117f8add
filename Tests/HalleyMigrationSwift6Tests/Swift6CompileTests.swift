import Foundation
import Halley
import Testing

/// The README snippets (the same files as `HalleyMigrationTests`, linked) build in Swift 6
/// mode too; this suite only proves they link and the model's include lists compile to
/// the paths the original documents.
@Suite struct Swift6CompileTests {
    @Test func theReadmeIncludeListCompilesToHalleysPaths() throws {
        let plan = try Contact.IncludeType.contactsAndWebsiteOfContacts.includePlan()
        let expected = try IncludePlan(["[contacts]", "[contacts].[contacts]", "[contacts].webSiteLink", "webSiteLink"])
        #expect(plan == expected)
    }
}
