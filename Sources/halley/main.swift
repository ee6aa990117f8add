import Foundation
import Halley

// Interim entry point until the full command-line tool lands: prints the relations of a
// HAL document read from a file.
let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: halley FILE.json\n".utf8))
    exit(2)
}
do {
    let resource = try HALResource(parsing: try Data(contentsOf: URL(fileURLWithPath: path)))
    for relation in resource.links.relations {
        for link in relation.links {
            print("\(relation.rel)\t\(link.href)\(link.templated ? "\t(templated)" : "")")
        }
    }
    for entry in resource.embedded.entries {
        print("_embedded \(entry.rel): \(entry.resources.count) resource(s)")
    }
} catch {
    FileHandle.standardError.write(Data("halley: \(error)\n".utf8))
    exit(3)
}
