/// A classic TIFF (either byte order) assembled byte by byte in the test,
/// for files the writer will not produce (unsupported sample formats, a bad
/// GDAL_NODATA, ground control points, a big-endian floating-point
/// predictor): one strip holding `imageData` as given, whose
/// StripOffsets/StripByteCounts are added here.
struct HandMadeTIFF {
    enum Value {
        case shorts([UInt16])
        case longs([UInt32])
        case ascii(String)
        case doubles([Double])
    }

    var entries: [(tag: UInt16, value: Value)]
    var imageData: [UInt8]
    var bigEndian = false

    func bytes() -> [UInt8] {
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 0] : [0x49, 0x49, 42, 0, 0, 0, 0, 0]
        let dataOffset = UInt32(out.count)
        out += imageData
        var all = entries
        all.append((273, .longs([dataOffset])))
        all.append((279, .longs([UInt32(imageData.count)])))
        all.sort { $0.tag < $1.tag }
        var encoded: [(tag: UInt16, type: UInt16, count: UInt32, payload: [UInt8])] = []
        for (tag, value) in all {
            switch value {
            case .shorts(let values): encoded.append((tag, 3, UInt32(values.count), values.flatMap { le($0) }))
            case .longs(let values): encoded.append((tag, 4, UInt32(values.count), values.flatMap { le($0) }))
            case .ascii(let text):
                let payload = Array(text.utf8) + [0]
                encoded.append((tag, 2, UInt32(payload.count), payload))
            case .doubles(let values): encoded.append((tag, 12, UInt32(values.count), values.flatMap { le($0.bitPattern) }))
            }
        }
        // Out-of-line payloads first, then the directory.
        var offsets: [UInt32] = []
        for entry in encoded {
            if entry.payload.count > 4 {
                if out.count % 2 == 1 { out.append(0) }
                offsets.append(UInt32(out.count))
                out += entry.payload
            } else {
                offsets.append(0)
            }
        }
        if out.count % 2 == 1 { out.append(0) }
        let directory = UInt32(out.count)
        out.replaceSubrange(4..<8, with: le(directory))
        out += le(UInt16(encoded.count))
        for (index, entry) in encoded.enumerated() {
            out += le(entry.tag) + le(entry.type) + le(entry.count)
            if entry.payload.count > 4 {
                out += le(offsets[index])
            } else {
                out += entry.payload + [UInt8](repeating: 0, count: 4 - entry.payload.count)
            }
        }
        out += le(UInt32(0))
        return out
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: bigEndian ? value.bigEndian : value.littleEndian) { Array($0) }
    }

    /// A `width × height` single-band image of `bitsPerSample`/`sampleFormat`
    /// samples (all zero bytes), plus `extra` entries.
    static func image(width: UInt32, height: UInt32, bitsPerSample: UInt16, sampleFormat: UInt16, samplesPerPixel: UInt16 = 1,
                      photometric: UInt16 = 1, extra: [(tag: UInt16, value: Value)] = []) -> HandMadeTIFF {
        let bytes = (Int(width) * Int(bitsPerSample) * Int(samplesPerPixel) + 7) / 8 * Int(height)
        return HandMadeTIFF(entries: [
            (256, .longs([width])), (257, .longs([height])), (258, .shorts([UInt16](repeating: bitsPerSample, count: Int(samplesPerPixel)))),
            (259, .shorts([1])), (262, .shorts([photometric])), (277, .shorts([samplesPerPixel])), (278, .longs([height])),
            (284, .shorts([1])), (339, .shorts([UInt16](repeating: sampleFormat, count: Int(samplesPerPixel)))),
        ] + extra, imageData: [UInt8](repeating: 0, count: bytes))
    }
}
