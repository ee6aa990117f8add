import AppleViewCore
import SwiftIfConfig
import Testing

/// The checks on small fixture files, each read as the library's (every Apple platform) unless
/// a test says otherwise.
@Suite struct AppleViewTests {
    static let targets = DeploymentTargets([
        .macOS: VersionTuple(14), .iOS: VersionTuple(17), .tvOS: VersionTuple(17), .watchOS: VersionTuple(10),
    ])

    /// The findings for `text` as the file at `path`, as printed.
    static func findings(
        _ text: String, at path: String = "Sources/Halley/Fixture.swift", targets: DeploymentTargets = targets
    ) -> [String] {
        AppleView.check([(path: path, text: text)], targets: targets).findings.map(\.description)
    }

    /// The platforms those findings are for, on `line`.
    static func platforms(_ findings: [String], line: Int) -> [String] {
        findings.compactMap { finding in
            let parts = finding.split(separator: ":", maxSplits: 3).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count > 2 && parts[1] == "\(line)" ? parts[2] : nil
        }
    }

    @Test func glibcRawValueOutsideAnIfFailsOnEveryApplePlatform() {
        let found = Self.findings("let kind = Int32(SOCK_STREAM.rawValue)\n")
        #expect(Self.platforms(found, line: 1) == ["macOS", "iOS", "tvOS", "watchOS"])
        #expect(found.first?.contains("SOCK_STREAM.rawValue does not compile on macOS") == true)
        let guarded = """
            #if canImport(Glibc)
                let kind = Int32(SOCK_STREAM.rawValue)
            #else
                let kind = SOCK_STREAM
            #endif
            """
        #expect(Self.findings(guarded).isEmpty)
    }

    @Test func glibcOnlyNamesAndModules() {
        let text = """
            import Glibc
            import FoundationNetworking
            let environment = environ
            let trimmed = malloc_trim(0)
            let qualified = Glibc.getpid()
            """
        let found = Self.findings(text, at: "Sources/halley/Fixture.swift")
        #expect(found.count == 5, "one each, macOS only for a tool: \(found)")
        #expect(Self.platforms(found, line: 3) == ["macOS"])
        let guarded = """
            #if canImport(Glibc)
                import Glibc
                let environment = environ
            #elseif canImport(Darwin)
                let environment = _NSGetEnviron().pointee
            #endif
            #if canImport(FoundationNetworking)
                import FoundationNetworking
            #endif
            """
        #expect(Self.findings(guarded).isEmpty)
    }

    @Test func newerAPIBelowTheTargetNeedsAvailability() {
        #expect(Self.platforms(Self.findings("struct Wide { let value: Int128 }\n"), line: 1).count == 4)
        let covered = """
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
            struct Wide { let value: Int128 }
            func branch() {
                if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), let value = Int128("1") {
                    print(value)
                }
            }
            func early() {
                guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
                let mutex = Mutex(0)
            }
            func later() {
                if #unavailable(macOS 15, iOS 18, tvOS 18, watchOS 11) {
                } else {
                    let mutex = Mutex(0)
                }
            }
            """
        #expect(Self.findings(covered).isEmpty)
        // `*` leaves the other platforms at their deployment targets.
        let macOSOnly = """
            @available(macOS 15.0, *)
            func wide() -> UInt128 { 0 }
            """
        #expect(Self.platforms(Self.findings(macOSOnly), line: 2) == ["iOS", "tvOS", "watchOS"])
    }

    @Test func aDeclarationsOwnAvailabilityReachesItsUses() {
        let text = """
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
            struct Wide: Codable { let value: Int128 }
            func use() -> Any { Wide.self }
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
            func coveredUse() -> Any { Wide.self }
            """
        let found = Self.findings(text)
        #expect(Self.platforms(found, line: 3).count == 4)
        #expect(found.allSatisfy { $0.contains(":3:") }, "\(found)")
        #expect(found.first?.contains("Wide is declared @available at Sources/Halley/Fixture.swift:1") == true)
    }

    @Test func aDeclarationUnavailableOnAPlatformIsUsedOnlyWhereItIsToo() {
        let text = """
            @available(iOS, unavailable)
            @available(tvOS, unavailable)
            @available(watchOS, unavailable)
            public struct CurlRequester {}
            func anywhere() { _ = CurlRequester() }
            @available(iOS, unavailable)
            @available(tvOS, unavailable)
            @available(watchOS, unavailable)
            func macOSAndLinux() { _ = CurlRequester() }
            #if os(macOS)
                func onTheMac() { _ = CurlRequester() }
            #endif
            @available(iOS, unavailable)
            func socket() { let accept = 1; _ = accept }
            func server() { _ = accept(0, nil, nil) }
            """
        let found = Self.findings(text)
        #expect(Self.platforms(found, line: 5) == ["iOS", "tvOS", "watchOS"])
        // Not the C `accept` beside a local of that name in code unavailable on iOS.
        #expect(found.count == 3, "only the use outside an unavailable context: \(found)")
        #expect(found.first?.contains("CurlRequester does not compile on iOS") == true)
        #expect(
            found.first?.contains("declared unavailable on iOS at Sources/Halley/Fixture.swift:1") == true, "\(found)")
    }

    @Test func observationFollowsTheDeploymentTargets() {
        let text = """
            import Observation
            @Observable final class Model { var value = 0 }
            func make() -> Model { Model() }
            """
        #expect(Self.findings(text).isEmpty)
        let older = DeploymentTargets([
            .macOS: VersionTuple(13), .iOS: VersionTuple(16), .tvOS: VersionTuple(16), .watchOS: VersionTuple(9),
        ])
        let found = Self.findings(text, targets: older)
        #expect(Self.platforms(found, line: 2).count == 4)
        #expect(found.first?.contains("@Observable needs macOS 14") == true)
        // The type's uses fail with it: an `@Observable` type cannot exist below Observation.
        // The result type and the call: one finding per platform and line.
        #expect(Self.platforms(found, line: 3).count == 4, "\(found)")
    }

    @Test func processIsMacOSOnly() {
        let found = Self.findings("let process = Process()\n")
        #expect(Self.platforms(found, line: 1) == ["iOS", "tvOS", "watchOS"])
        #expect(Self.findings("let process = Process()\n", at: "Tests/HalleyTestSupport/Fixture.swift").isEmpty)
    }

    @Test func requiredReasonAPIsInShippedCodeAreFound() {
        let text = "let launched = UserDefaults.standard.bool(forKey: \"launched\")\n"
        let found = Self.findings(text)
        #expect(Self.platforms(found, line: 1).count == 4)
        #expect(found.first?.contains("required-reason APIs, for the app's defaults (user defaults)") == true)
        #expect(Self.findings(text, at: "Tests/HalleyTests/Fixture.swift").isEmpty, "tests do not ship in apps")
    }

    @Test func countsTheLinesOnlyAppleBuildsRead() {
        let text = """
            #if canImport(Combine)
                import Combine
                let a = 1
            #elseif os(Linux)
                let b = 2
            #endif
            let c = 3
            """
        let report = AppleView.check([(path: "Sources/Halley/Fixture.swift", text: text)], targets: Self.targets)
        #expect(report.findings.isEmpty)
        #expect(report.summaries.map(\.appleOnlyLines) == [2, 2, 2, 2])
    }

    @Test func anUnknownModuleOrFolderIsAFinding() {
        let found = Self.findings("#if canImport(Mystery)\n#endif\n")
        #expect(found.count == 5, "each Apple platform and Linux: \(found)")
        #expect(found.first?.contains("does not know whether Mystery can be imported") == true)
        #expect(Self.findings("let a = 1\n", at: "Sources/NewTarget/A.swift").count == 1)
    }

    @Test func readsTheManifestsTargets() throws {
        let manifest = #"platforms: [.macOS(.v14), .iOS("17.0"), .tvOS(.v17), .watchOS(.v10_2)],"#
        let targets = try DeploymentTargets(manifest: manifest)
        #expect(targets.description == "macOS 14, iOS 17, tvOS 17, watchOS 10.2")
        #expect(throws: DeploymentTargetsError.self) { try DeploymentTargets(manifest: "platforms: [.macOS(.v14)]") }
    }
}
