import Foundation
import HalleyTestSupport
import Testing

/// `--strict` (issue #38): a misspelled include fails with exit status 3 and one line naming
/// the include path and the rels the resource has; without it, a note, and exit status 0.
@Suite struct CLIStrictTests {
    let api = CLIRunner.api

    @Test func aMisspelledIncludeIsANoteWithoutStrict() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "websit"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderrLines == [
                "halley: note: include path \"websit\": resource \(api)/contacts/1 has no \"websit\" relation; "
                    + "left out there"
            ], "\(result)")
    }

    @Test func strictFailsNamingThePathAndTheRels() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "websit", "--strict"])
        CLIExpect.failure(result, status: 3)
        #expect(
            result.stderrLines.last
                == "halley: websit is not in the resource; available rels: self, contacts, website, avatar "
                + "(include path \"websit\", URL \(api)/contacts/1)", "\(result)")
        // Spelled right, the same command succeeds.
        let fixed = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "website", "--strict"])
        #expect(fixed.status == 0, "\(fixed)")
    }

    @Test func strictWithAllowPartialListsTheMissingRelationAsAFailure() async throws {
        let result = try await CLIRunner.fixtures(
            "get", ["\(api)/contacts/1", "--include", "websit", "--include", "website", "--strict", "--allow-partial"])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["website"] != nil)
        #expect(
            result.stderrLines.contains {
                $0.hasPrefix("halley: partial: include path \"websit\", URL \(api)/contacts/1: websit is not in")
            }, "\(result)")
    }

    @Test func strictReachesTheItemsOfItems() async throws {
        let result = try await CLIRunner.fixtures(
            "items", ["\(api)/contacts", "--include", "websit", "--strict"])
        CLIExpect.failure(result, status: 3, containing: ["include path \"websit\""])
    }
}
