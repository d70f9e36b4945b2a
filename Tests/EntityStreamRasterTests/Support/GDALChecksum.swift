import EntityStreamRaster
import Testing

/// GDAL's `GDALChecksumImage` for an integer band, written here from its
/// published definition (GDAL `gcore/gdalchecksum.cpp`): every sample, row by
/// row, adds `value % prime` (primes 7, 11, 13 … 43 in turn) to a 16-bit sum.
/// The independent oracle for whole-image decoding: GDAL's autotest lists
/// byte.tif as 4672, rasterio's tests list RGB.byte.tif as [25420, 29131, 37860].
/// A NoData sample counts as the raw NoData value (GDAL checksums raw
/// values). One checksum per band, all bands in one pass.
func gdalChecksums(_ raster: GeoTIFFRaster) throws -> [Int] {
    let primes = [7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43]
    let raw = raster.info.noData?.value ?? 0
    let bands = raster.info.bandCount
    var checksums = [Int](repeating: 0, count: bands)
    var prime = 0
    for row in 0..<raster.info.height {
        for column in 0..<raster.info.width {
            let values = try #require(try raster.sample(column: column, row: row)).values
            for band in 0..<bands {
                checksums[band] = (checksums[band] + Int(values[band] ?? raw) % primes[prime]) & 0xffff
            }
            prime = prime == 10 ? 0 : prime + 1
        }
    }
    return checksums
}
