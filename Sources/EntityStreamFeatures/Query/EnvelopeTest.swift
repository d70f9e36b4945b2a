import EntityStreamProjection
import EntityStreamModel

/// A query envelope tested against a table's points, exactly, whatever the
/// two spatial references: as ArcGIS does, "inside or on the boundary" is
/// decided in the envelope's own spatial reference (`inSR`).
///
/// When the envelope and the points are in the same reference (or either is
/// unknown) the coordinates are compared as they are. Otherwise the
/// envelope's outline (64 points an edge) is brought into the points'
/// reference through PROJ once, and its bounding box, widened by 0.5 %,
/// narrows the candidates cheaply; each candidate is then brought into the
/// envelope's reference and tested exactly. When part of the outline has no
/// image in the points' reference, every point is tested exactly. A value;
/// safe from any number of tasks.
struct EnvelopeTest: Sendable {
    let envelope: Envelope
    /// The candidates' box in the points' reference (nil: test every point exactly).
    private let outline: Envelope?
    private let conversion: (source: SpatialReference, target: SpatialReference)?

    /// - Throws: ``FeatureQueryError`` (`inSR`) when PROJ does not know a
    ///   reference or cannot transform between them.
    init(_ envelope: Envelope, tableReference: Int?) throws(FeatureQueryError) {
        self.envelope = envelope
        guard let target = SpatialReference(code: envelope.wkid), let source = SpatialReference(code: tableReference), source != target else {
            outline = nil
            conversion = nil
            return
        }
        do throws(ProjectionError) { try CoordinateOperations.check(from: target, to: source) } catch { throw .projection(parameter: "inSR", error) }
        conversion = (source, target)
        var xs: [Double] = [], ys: [Double] = []
        let steps = 64
        for step in 0..<steps {
            let t = Double(step) / Double(steps)
            let x = envelope.xmin + t * (envelope.xmax - envelope.xmin), y = envelope.ymin + t * (envelope.ymax - envelope.ymin)
            xs += [x, envelope.xmax, envelope.xmax - t * (envelope.xmax - envelope.xmin), envelope.xmin]
            ys += [envelope.ymin, y, envelope.ymax, envelope.ymax - t * (envelope.ymax - envelope.ymin)]
        }
        let failed = (try? CoordinateOperations.transform(x: &xs, y: &ys, from: target, to: source)) ?? xs.count
        guard failed == 0, let xmin = xs.min(), let xmax = xs.max(), let ymin = ys.min(), let ymax = ys.max() else {
            outline = nil
            return
        }
        let marginX = (xmax - xmin) * 0.005, marginY = (ymax - ymin) * 0.005
        outline = Envelope(xmin: xmin - marginX, ymin: ymin - marginY, xmax: xmax + marginX, ymax: ymax + marginY)
    }

    /// True when `point` (in the table's reference) is inside the envelope or on its boundary.
    func contains(_ point: Point) -> Bool {
        guard let conversion else { return envelope.contains(point) }
        if let outline, !outline.contains(point) { return false }
        guard let converted = try? CoordinateOperations.transform(x: point.x, y: point.y, from: conversion.source, to: conversion.target) else {
            return false
        }
        return converted.x >= envelope.xmin && converted.x <= envelope.xmax && converted.y >= envelope.ymin && converted.y <= envelope.ymax
    }
}
