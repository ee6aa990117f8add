import AppleViewCore
import Foundation

// apple-view [--root DIR] [--list] FOLDER...
// Reads every .swift file under the folders (relative to the package root, the current folder
// unless --root says otherwise) as macOS, iOS, tvOS and watchOS builds would, against the
// deployment targets of the root's Package.swift. Prints one line per finding, then per
// platform how many lines only an Apple build reads (with --list, file by file). Exits 1 on
// any finding, 2 when it cannot run.

var root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
var folders: [String] = []
var lists = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--root":
        guard let path = arguments.popFirst() else {
            FileHandle.standardError.write(Data("apple-view: --root needs a folder\n".utf8))
            exit(2)
        }
        root = URL(fileURLWithPath: path)
    case "--list":
        lists = true
    case "-h", "--help":
        print("usage: apple-view [--root DIR] [--list] FOLDER...")
        exit(0)
    default:
        folders.append(argument)
    }
}
guard !folders.isEmpty else {
    FileHandle.standardError.write(Data("usage: apple-view [--root DIR] [--list] FOLDER...\n".utf8))
    exit(2)
}

let report: Report
do {
    report = try AppleView.check(root: root, folders: folders)
} catch {
    FileHandle.standardError.write(Data("apple-view: \(error)\n".utf8))
    exit(2)
}

for finding in report.findings {
    print(finding)
}
print("apple-view: deployment targets \(report.targets.description) (Package.swift)")
for summary in report.summaries {
    let files = summary.appleOnlyLinesByFile.count
    print(
        "apple-view: \(summary.platform.rawValue) \(versionText(summary.target)): \(summary.files) files read; "
            + "\(summary.appleOnlyLines) lines in \(files) files active only on Apple (never type-checked on Linux)")
    if lists {
        for (path, lines) in summary.appleOnlyLinesByFile.sorted(by: { $0.key < $1.key }) {
            print("    \(lines)\t\(path)")
        }
    }
}
if report.findings.isEmpty {
    print("apple-view: no findings")
} else {
    print("apple-view: \(report.findings.count) findings")
    exit(1)
}
