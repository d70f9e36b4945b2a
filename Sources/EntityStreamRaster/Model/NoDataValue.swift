import Foundation

/// A raster's NoData value (GeoTIFF's `GDAL_NODATA` tag, 42113: ASCII, one
/// value shared by every band) and GDAL's rule for which samples it marks.
///
/// The rule is GDAL's NoData mask (`GDALNoDataMaskBand`): the value is
/// converted to the band's type and compared there.
/// - Integer bands: a value outside the type's range marks nothing; otherwise
///   it is truncated toward zero (C's `static_cast`) and compared exactly.
/// - float32: a value outside float's finite range (other than ±∞ and NaN)
///   marks nothing; otherwise it is rounded to float and compared with GDAL's
///   `ARE_REAL_EQUAL` (equal, or closer than 2·FLT_EPSILON·|a+b|).
/// - float64: compared with `ARE_REAL_EQUAL` in double.
/// - NaN marks exactly the NaN samples (of either float type; no integer sample).
///
/// Pure and `Sendable`. A comparison is a few instructions: a matcher built
/// once per raster (``matcher(for:)``) holds the converted value.
public struct NoDataValue: Sendable, Hashable {
    /// The tag's value as a Double (NaN for `nan`).
    public let value: Double
    /// The tag's text as the file has it.
    public let text: String

    /// Parses the tag's text as GDAL writes it: a decimal number (`-9999`,
    /// `-3.4e+38`, `0.5`), `nan`, `inf` or `-inf` (any case), surrounding
    /// spaces and NULs ignored. Nil when it is not a number.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\0"))
        let lower = trimmed.lowercased()
        let parsed: Double?
        switch lower {
        case "nan", "-nan", "+nan", "1.#qnan", "-1.#ind": parsed = .nan
        case "inf", "+inf", "infinity", "+infinity": parsed = .infinity
        case "-inf", "-infinity": parsed = -.infinity
        default: parsed = lower.isEmpty || lower.count > 64 ? nil : Double(lower)
        }
        guard let parsed else { return nil }
        self.value = parsed
        self.text = trimmed
    }

    /// A NoData value given as a number (the writer's input).
    public init(_ value: Double) {
        self.value = value
        self.text = NoDataValue.gdalText(value)
    }

    /// The text GDAL writes for `value` (`nan`, `inf`, `-inf`, or the
    /// shortest decimal that reads back exactly).
    static func gdalText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    public static func == (lhs: NoDataValue, rhs: NoDataValue) -> Bool {
        lhs.text == rhs.text && (lhs.value == rhs.value || (lhs.value.isNaN && rhs.value.isNaN))
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The comparison for samples of `type`.
    public func matcher(for type: PixelType) -> NoDataMatcher { NoDataMatcher(noData: value, type: type) }
}

/// ``NoDataValue``'s rule for one pixel type, with the value already
/// converted: `matches(sample)` is true when the sample (a band value as
/// `Double`) is NoData. Pure; `Sendable`.
public struct NoDataMatcher: Sendable, Hashable {
    enum Rule: Hashable {
        case never
        case nan
        case exactly(Double)
        case realEqualFloat(Float)
        case realEqualDouble(Double)
    }

    let rule: Rule

    init(noData: Double, type: PixelType) {
        switch type {
        case .float64:
            rule = noData.isNaN ? .nan : .realEqualDouble(noData)
        case .float32:
            if noData.isNaN {
                rule = .nan
            } else if noData.isInfinite || abs(noData) <= Double(Float.greatestFiniteMagnitude) {
                rule = .realEqualFloat(Float(noData))
            } else {
                rule = .never
            }
        default:
            if let range = type.integerRange, range.contains(noData) {
                rule = .exactly(noData.rounded(.towardZero))
            } else {
                rule = .never
            }
        }
    }

    /// True when `sample` is NoData under this rule.
    @inlinable public func matches(_ sample: Double) -> Bool { test(sample) }

    @usableFromInline func test(_ sample: Double) -> Bool {
        switch rule {
        case .never: return false
        case .nan: return sample.isNaN
        case .exactly(let value): return sample == value
        case .realEqualFloat(let value):
            let s = Float(sample)
            return s == value || abs(s - value) < Float.ulpOfOne * abs(s + value) * 2
        case .realEqualDouble(let value):
            return sample == value || abs(sample - value) < Double(Float.ulpOfOne) * abs(sample + value) * 2
        }
    }
}
