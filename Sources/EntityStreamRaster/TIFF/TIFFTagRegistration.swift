import CLibGeoTIFF
import CLibTIFF

/// Registers, once per process, the private TIFF tags this module reads and
/// writes with libtiff: libgeotiff's GeoTIFF tags (`XTIFFInitialize`) and
/// GDAL's `GDAL_METADATA`/`GDAL_NODATA` (a libtiff tag extender chained after
/// libgeotiff's). Registration is a process-wide libtiff setting; it is
/// done under Swift's one-time global initialisation, so concurrent first
/// uses are safe.
enum TIFFTagRegistration {
    /// Evaluating this performs the registration (at most once).
    static let ensured: Void = {
        XTIFFInitialize()
        previousExtender = TIFFSetTagExtender { tiff in
            _ = es_tiff_merge_gdal_tags(tiff)
            previousExtender?(tiff)
        }
    }()
}

/// The extender that was installed before ours (libgeotiff's), which ours
/// calls in turn. Written once inside ``TIFFTagRegistration/ensured``'s
/// one-time initialisation, before any TIFF is opened; only read afterwards.
nonisolated(unsafe) private var previousExtender: TIFFExtendProc?
