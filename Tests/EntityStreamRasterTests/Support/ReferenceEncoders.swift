/// Encoders written in the test from their specifications, to build files
/// no libtiff writer took part in.
enum ReferenceEncoders {
    /// TIFF Technical Note 3's floating-point predictor for one row of
    /// float32 samples (one sample per pixel): the samples' bytes most
    /// significant first, laid out as byte planes, then differenced byte by byte.
    static func floatingPointPredicted(row: [Float]) -> [UInt8] {
        let width = row.count
        var planes = [UInt8](repeating: 0, count: width * 4)
        for (index, value) in row.enumerated() {
            let bits = value.bitPattern
            for byte in 0..<4 { planes[byte * width + index] = UInt8(truncatingIfNeeded: bits >> (24 - 8 * byte)) }
        }
        for index in stride(from: planes.count - 1, to: 0, by: -1) { planes[index] &-= planes[index - 1] }
        return planes
    }

    /// A zlib stream (RFC 1950) of RFC 1951 "stored" blocks: the Deflate
    /// encoding of `data` without compression.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)
            out += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
        return out
    }
}
