/// ArcGIS's `SSUtilities.returnPeakIndices(values, levelFilter)`: index c is
/// a peak when the series falls from c to c+1 after having risen somewhere
/// before c, and `values[c] > level`. Returns the first peak and the peak
/// with the largest value (nil when there is none). The last value is never
/// a peak (nothing follows it); NaN never is.
enum PeakDetection {
    static func peaks(_ values: [Double], level: Double) -> (first: Int?, maximum: Int?) {
        guard values.count > 1 else { return (nil, nil) }
        var risen = false
        var first: Int?
        var maximum: Int?
        for c in 0..<(values.count - 1) {
            let difference = values[c + 1] - values[c]
            if difference > 0 { risen = true }
            guard difference < 0, risen, values[c] > level else { continue }
            if first == nil { first = c }
            if let m = maximum { if values[c] > values[m] { maximum = c } } else { maximum = c }
        }
        return (first, maximum)
    }
}
