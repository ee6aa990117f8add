import Foundation
import HalleyTestSupport
import Testing

/// `halley get --trace`: the per-request lines and the waterfall, in the format
/// `halley get --help` documents.
@Suite struct CLITraceTests {
    let api = CLIRunner.api

    /// One parsed `trace:` line.
    struct TraceLine {
        let method: String
        let url: String
        let status: String
        let bytes: Int
        let start: Double
        let duration: Double
        let include: String

        /// `trace: GET URL status=200 bytes=311 start=1.07ms duration=0.21ms include=PATH`.
        init?(_ line: String) {
            let pattern =
                #/^trace: ([A-Z]+) (\S+) status=(\d{3}|failed) bytes=(\d+) start=(\d+\.\d{2})ms duration=(\d+\.\d{2})ms include=(.+)$/#
            guard let match = line.wholeMatch(of: pattern), let bytes = Int(match.4), let start = Double(match.5),
                let duration = Double(match.6)
            else { return nil }
            method = String(match.1)
            url = String(match.2)
            status = String(match.3)
            self.bytes = bytes
            self.start = start
            self.duration = duration
            include = String(match.7)
        }
    }

    /// The trace lines of a run, failing the test on any `trace:` line that does not parse.
    func traceLines(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) -> [TraceLine] {
        result.stderrLines.filter { $0.hasPrefix("trace:") }.compactMap { line in
            let parsed = TraceLine(line)
            #expect(parsed != nil, "malformed trace line: \(line)", sourceLocation: sourceLocation)
            return parsed
        }
    }

    @Test func oneLinePerRequestWithMethodURLStatusBytesTimesAndIncludePath() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "[contacts].website", "--trace",
            ])
        #expect(result.status == 0, "\(result)")
        let lines = traceLines(result)
        #expect(lines.count == 5, "\(result)")
        #expect(lines.allSatisfy { $0.method == "GET" && $0.status == "200" && $0.bytes > 0 })
        #expect(
            Set(lines.map(\.url)) == [
                "\(api)/contacts/1", "\(api)/contacts/2", "\(api)/contacts/3", "\(api)/websites/2", "\(api)/websites/3",
            ])
        let includes = Dictionary(lines.map { ($0.url, $0.include) }, uniquingKeysWith: { first, _ in first })
        #expect(includes["\(api)/contacts/1"] == "(root)")
        #expect(includes["\(api)/contacts/3"] == "[contacts]")
        #expect(includes["\(api)/websites/2"] == "[contacts].website")
        // A website is requested after the contact linking to it started.
        let root = try #require(lines.first { $0.include == "(root)" })
        #expect(lines.allSatisfy { $0.start >= root.start })
        // The byte count is the body's size.
        let body = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.fixtures + "/contacts/1.json"))
        #expect(root.bytes == body.count)
    }

    @Test func waterfallHasOneRowPerRequestWithBarsOnASixtyColumnAxis() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "[contacts].website", "--trace",
            ])
        let lines = result.stderrLines
        let headerIndex = try #require(lines.firstIndex { $0.hasPrefix("waterfall: ") }, "\(result)")
        let header = lines[headerIndex]
        #expect(
            header.wholeMatch(of: #/waterfall: 5 requests in \d+\.\d{2}ms, 1 column = \d+\.\d{2}ms/#) != nil,
            "\(header)")
        #expect(headerIndex > lines.lastIndex { $0.hasPrefix("trace: ") } ?? -1, "waterfall after the trace lines")

        let rowPattern = #/  #(\d+) \|([ =]{60})\| (\d+\.\d{2})ms \+(\d+\.\d{2})ms (\S+) (\S+)/#
        let rows = lines[(headerIndex + 1)...].compactMap { $0.wholeMatch(of: rowPattern) }
        #expect(rows.count == 5, "\(result)")
        #expect(rows.map { Int($0.1) } == [1, 2, 3, 4, 5])
        for row in rows {
            let bar = String(row.2)
            let filled = bar.filter { $0 == "=" }.count
            #expect(filled >= 1, "every request gets at least one column: \(bar)")
            // One contiguous bar.
            #expect(bar.trimmingCharacters(in: .whitespaces).allSatisfy { $0 == "=" }, "\(bar)")
        }
        // Rows in start order, bars moving right (never left) as requests start later.
        let starts = rows.compactMap { Double($0.3) }
        #expect(starts == starts.sorted())
        let offsets = rows.map { row in String(row.2).prefix { $0 == " " }.count }
        #expect(offsets == offsets.sorted(), "\(offsets)")
        #expect(rows.first?.5 == "(root)")
        #expect(rows.first?.6 == "\(api)/contacts/1")
    }

    @Test func maxConcurrencyOneRunsRequestsOneAfterAnother() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "[contacts].website", "--include", "website", "--trace",
                "--max-concurrency", "1",
            ])
        #expect(result.status == 0, "\(result)")
        let lines = traceLines(result).sorted { $0.start < $1.start }
        #expect(lines.count == 6)
        // Each request starts once the previous one ended (times are rounded to 0.01 ms).
        for (previous, next) in zip(lines, lines.dropFirst()) {
            #expect(next.start + 0.02 >= previous.start + previous.duration, "\(result)")
        }
    }

    @Test func traceOfAFailedRunStillShowsTheRequestsAndTheWaterfall() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "[contacts].manager", "--trace",
            ])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 404"])
        #expect(traceLines(result).contains { $0.status == "404" && $0.include == "[contacts].manager" }, "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("waterfall: ") })
    }

    @Test func noTraceWithoutTheFlag() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "website"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result)")
    }

    @Test func traceBeforeAnyRequestPrintsAnEmptyWaterfall() async throws {
        // A bad include path is refused before the first request.
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "[a", "--trace"])
        CLIExpect.failure(result, status: 3)
        #expect(result.stderrLines.contains("waterfall: no requests"), "\(result)")
    }
}
