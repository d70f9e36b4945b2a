import EntityStreamProjection

extension RasterError {
    /// The raster error for what PROJ said about a spatial reference or a point.
    init(_ error: ProjectionError) {
        switch error {
        case .unknownSpatialReference(let name, let detail): self = .unknownSpatialReference(definition: name, detail: detail)
        case .malformed(let text, let reason): self = .unknownSpatialReference(definition: text, detail: reason)
        case .noTransformation(let from, let to, let detail): self = .noTransformation(from: from, to: to, detail: detail)
        case .cannotTransform(let x, let y, let from, let to, let detail):
            self = .cannotTransform(x: x, y: y, from: from, to: to, detail: detail)
        case .databaseMissing(let detail): self = .projDatabaseMissing(detail: detail)
        case .tooManyWKT: self = .unknownSpatialReference(definition: "WKT", detail: error.description)
        }
    }
}
