import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamFiles

extension LiveSource {
    /// The service's own description text and spatial reference, once its description is loaded.
    func streamFacts() async -> SourceStreamFacts {
        let description = await connection.serviceDescription
        return SourceStreamFacts(description: description?.serviceDescription, spatialReference: description?.spatialReference)
    }
}

extension ReplayRun {
    /// The recorded service's description and spatial reference (a recording's header), else the file's name.
    func streamFacts() async -> SourceStreamFacts {
        let summary = source.summary
        let name = source.path == "-" ? "standard input" : URL(fileURLWithPath: source.path).lastPathComponent
        return SourceStreamFacts(description: summary.description?.serviceDescription ?? "Replay of \(name)",
                                 spatialReference: summary.spatialReference)
    }
}
