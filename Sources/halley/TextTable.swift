/// A plain-text table with aligned columns, for `halley links`.
enum TextTable {
    /// Renders a header row and the rows, columns left-aligned and separated by two spaces,
    /// with no trailing spaces. Cells are made single-line and terminal-safe first, since
    /// their text comes from a server.
    static func render(header: [String], rows: [[String]]) -> String {
        let cleaned = ([header] + rows).map { row in row.map(Console.singleLine) }
        var widths = Array(repeating: 0, count: header.count)
        for row in cleaned {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return cleaned.map { row in
            let padded = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return padded.joined(separator: "  ") + "\n"
        }.joined()
    }
}
