/// A plain-text table with aligned columns, for `halley links`.
enum TextTable {
    /// Renders a header row and the rows, columns left-aligned and separated by two spaces,
    /// with no trailing spaces. Cells are made single-line and terminal-safe first, since
    /// their text comes from a server, and padded by the columns they take on a terminal
    /// (``DisplayWidth``), so rows with CJK or accented text line up too.
    static func render(header: [String], rows: [[String]]) -> String {
        let cleaned = ([header] + rows).map { row in row.map(Console.singleLine) }
        let cellWidths = cleaned.map { row in row.map(DisplayWidth.of) }
        var widths = Array(repeating: 0, count: header.count)
        for row in cellWidths {
            for (column, width) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], width)
            }
        }
        return zip(cleaned, cellWidths).map { row, rowWidths in
            let padded = row.enumerated().map { column, cell in
                column == row.count - 1 || column >= widths.count
                    ? cell : cell + String(repeating: " ", count: widths[column] - rowWidths[column])
            }
            return padded.joined(separator: "  ") + "\n"
        }.joined()
    }
}
