/// How a TIFF image is cut into blocks — strips (full-width runs of rows)
/// or tiles — and where each sample lives inside its block.
///
/// Blocks are numbered as libtiff numbers strips and tiles: row-major within
/// one plane, and with PlanarConfiguration 2 (separate) one plane per band
/// after another. A block always holds `blockWidth × blockHeight` pixels
/// (edge tiles are padded; the last strip may hold fewer rows). The
/// initialiser checks every size for overflow, so the arithmetic of the
/// lookups cannot trap for any cell inside the image. Pure; `Sendable`.
struct BlockLayout: Sendable, Hashable {
    let width: Int
    let height: Int
    let bandCount: Int
    let bytesPerSample: Int
    let blockWidth: Int
    let blockHeight: Int
    let isTiled: Bool
    let isPlanarSeparate: Bool
    let blocksAcross: Int
    let blocksDown: Int
    /// Blocks in one plane (all blocks unless planar-separate).
    let blocksPerPlane: Int
    /// Every block of the image.
    let blockCount: Int
    /// Bytes of one decoded full block.
    let blockByteCount: Int
    /// Samples per pixel inside one block: the band count, or 1 when planar-separate.
    let samplesPerBlockPixel: Int

    /// Nil when a size is not positive or the totals overflow.
    init?(width: Int, height: Int, bandCount: Int, bytesPerSample: Int,
                 blockWidth: Int, blockHeight: Int, isTiled: Bool, isPlanarSeparate: Bool) {
        guard width > 0, height > 0, bandCount > 0, bytesPerSample > 0, blockWidth > 0, blockHeight > 0 else { return nil }
        let across = width / blockWidth + (width % blockWidth == 0 ? 0 : 1)
        let down = height / blockHeight + (height % blockHeight == 0 ? 0 : 1)
        let samples = isPlanarSeparate ? 1 : bandCount
        let (perPlane, o1) = across.multipliedReportingOverflow(by: down)
        let (count, o2) = perPlane.multipliedReportingOverflow(by: isPlanarSeparate ? bandCount : 1)
        let (pixels, o3) = blockWidth.multipliedReportingOverflow(by: blockHeight)
        let (samplesInBlock, o4) = pixels.multipliedReportingOverflow(by: samples)
        let (bytes, o5) = samplesInBlock.multipliedReportingOverflow(by: bytesPerSample)
        let (_, o6) = width.multipliedReportingOverflow(by: height)
        guard !(o1 || o2 || o3 || o4 || o5 || o6) else { return nil }
        self.width = width
        self.height = height
        self.bandCount = bandCount
        self.bytesPerSample = bytesPerSample
        self.blockWidth = blockWidth
        self.blockHeight = blockHeight
        self.isTiled = isTiled
        self.isPlanarSeparate = isPlanarSeparate
        self.blocksAcross = across
        self.blocksDown = down
        self.blocksPerPlane = perPlane
        self.blockCount = count
        self.blockByteCount = bytes
        self.samplesPerBlockPixel = samples
    }

    /// The block holding band `band` of cell (`column`, `row`), which must be inside the image.
    @inline(__always) func block(column: Int, row: Int, band: Int) -> Int {
        let inPlane = (row / blockHeight) * blocksAcross + column / blockWidth
        return isPlanarSeparate ? band * blocksPerPlane + inPlane : inPlane
    }

    /// The byte offset of band `band` of cell (`column`, `row`) inside its block.
    @inline(__always) func byteOffset(column: Int, row: Int, band: Int) -> Int {
        let pixel = (row % blockHeight) * blockWidth + column % blockWidth
        return (pixel * samplesPerBlockPixel + (isPlanarSeparate ? 0 : band)) * bytesPerSample
    }

    /// Rows the block really holds (the last strip may be short; tiles are always full).
    func rowsInBlock(_ block: Int) -> Int {
        if isTiled { return blockHeight }
        let stripInPlane = block % blocksPerPlane
        return min(blockHeight, height - stripInPlane * blockHeight)
    }

    /// Bytes of decoded data the block really holds.
    func byteCount(ofBlock block: Int) -> Int {
        rowsInBlock(block) * blockWidth * samplesPerBlockPixel * bytesPerSample
    }
}
