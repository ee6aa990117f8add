import HalleyHAL
import Testing

/// Runs the uritemplate-test suite (github.com/uri-templates/uritemplate-test).
@Suite struct URITemplateConformanceTests {
    /// One test case per suite entry, so a failure names its file, group
    /// and template.
    @Test(arguments: try URITemplateConformanceFixtures.allCases())
    func suiteCase(_ testCase: URITemplateConformanceCase) {
        if let mismatch = testCase.mismatch() {
            Issue.record("\(testCase.testDescription): \(mismatch)")
        }
    }

    /// Guards against a suite file being silently truncated or misread: every
    /// case of every file must be loaded and run.
    @Test(
        arguments: zip(
            URITemplateConformanceFixtures.files,
            URITemplateConformanceFixtures.expectedCounts
        ))
    func everyCaseOfFileRuns(file: String, expectedCount: Int) throws {
        let cases = try URITemplateConformanceFixtures.cases(in: file)
        var ran = 0
        var failed = 0
        for testCase in cases {
            ran += 1
            if let mismatch = testCase.mismatch() {
                failed += 1
                Issue.record("\(testCase.testDescription): \(mismatch)")
            }
        }
        print("uritemplate-test \(file): \(ran) cases run, \(failed) failed")
        #expect(ran == expectedCount)
        #expect(failed == 0)
    }
}
