/*
 * The C surface of libgeotiff that Swift sees (Debian: libgeotiff-dev).
 *
 * Debian 12 ships no pkg-config file for libgeotiff: its headers are in
 * /usr/include/geotiff (included here by that path) and the library is
 * linked by name (module.modulemap: link "geotiff").
 *
 * This shim deliberately does not include <tiffio.h> (libtiff is the
 * CLibTIFF module's): libgeotiff takes the TIFF handle as `void *`.
 * GTIFKeySet is variadic and libgeotiff's error callback is variadic, so
 * both are restated here as typed functions; errors are collected into a
 * caller-owned buffer instead of being printed to stderr.
 * Only the Raster module imports this module.
 */
#ifndef ENTITYSTREAM_GEOTIFF_SHIM_H
#define ENTITYSTREAM_GEOTIFF_SHIM_H

#include <stdarg.h>
#include <stdio.h>
#include <geotiff/geotiff.h>
#include <geotiff/geovalues.h>
#include <geotiff/geo_normalize.h>

/* The GeoTIFF TIFF tags (libgeotiff's xtiffio.h, which includes tiffio.h). */
#define ES_TIFFTAG_GEOPIXELSCALE 33550
#define ES_TIFFTAG_GEOTIEPOINTS 33922
#define ES_TIFFTAG_GEOTRANSMATRIX 34264
#define ES_TIFFTAG_GEOKEYDIRECTORY 34735

/* Registers the GeoTIFF tags with libtiff for every TIFF opened afterwards
 * (libgeotiff's xtiff.c installs a libtiff tag extender). */
extern void XTIFFInitialize(void);

/* The first error libgeotiff reported for one GTIF handle. */
typedef struct es_gtif_messages {
    char first_error[512];
    unsigned errors;
} es_gtif_messages;

static inline const char *es_gtif_messages_first_error(const es_gtif_messages *m) { return m->first_error; }

static void es_gtif_error_callback(GTIF *gtif, int level, const char *fmt, ...) {
    (void)level;
    es_gtif_messages *m = (es_gtif_messages *)GTIFGetUserData(gtif);
    if (m == NULL) return;
    if (m->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->first_error, sizeof m->first_error, fmt, ap);
        va_end(ap);
    }
}

/* GTIFNewEx with errors collected in `messages` (which must outlive the handle). */
static inline GTIF *es_gtif_new(void *tif, es_gtif_messages *messages) {
    messages->first_error[0] = 0;
    messages->errors = 0;
    return GTIFNewEx(tif, es_gtif_error_callback, messages);
}

/* Typed GTIFKeySet. Each returns 1 on success. */
static inline int es_gtif_key_set_short(GTIF *gtif, int key, unsigned short value) {
    return GTIFKeySet(gtif, (geokey_t)key, TYPE_SHORT, 1, (int)value);
}
static inline int es_gtif_key_set_double(GTIF *gtif, int key, double value) {
    return GTIFKeySet(gtif, (geokey_t)key, TYPE_DOUBLE, 1, value);
}
static inline int es_gtif_key_set_ascii(GTIF *gtif, int key, const char *value) {
    return GTIFKeySet(gtif, (geokey_t)key, TYPE_ASCII, 0, value);
}

/* One ASCII GeoKey (a citation) into `buffer` (`size` bytes, NUL-terminated):
 * its length when present, else 0. */
static inline int es_gtif_key_get_ascii(GTIF *gtif, int key, char *buffer, int size) {
    if (size <= 0) return 0;
    buffer[0] = 0;
    tagtype_t type;
    int unit = 0;
    if (GTIFKeyInfo(gtif, (geokey_t)key, &unit, &type) <= 0 || type != TYPE_ASCII) return 0;
    return GTIFKeyGetASCII(gtif, (geokey_t)key, buffer, size);
}

/* One SHORT GeoKey: 1 and the value when present, else 0. */
static inline int es_gtif_key_get_short(GTIF *gtif, int key, unsigned short *value) {
    return GTIFKeyGetSHORT(gtif, (geokey_t)key, value, 0, 1);
}

#endif
