/*
 * The C surface of libtiff that Swift sees (Debian: libtiff-dev, pkg-config libtiff-4).
 *
 * TIFFGetField and TIFFSetField are variadic, which Swift cannot call, and
 * libtiff reports errors through variadic handlers, which Swift cannot
 * implement. This shim restates what the Raster module needs as typed
 * static inline functions, and collects each handle's error and warning
 * messages into a caller-owned buffer instead of printing them to stderr.
 * Only the Raster module imports this module.
 */
#ifndef ENTITYSTREAM_TIFF_SHIM_H
#define ENTITYSTREAM_TIFF_SHIM_H

#include <tiffio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* GDAL's private tags (GDAL frmts/gtiff/gtiff.h). */
#define ES_TIFFTAG_GDAL_METADATA 42112
#define ES_TIFFTAG_GDAL_NODATA 42113

/* Messages libtiff reported for one handle: the first error, the last
 * warning, and how many of each. Owned by the caller, alive as long as the
 * handle. */
typedef struct es_tiff_messages {
    char first_error[512];
    char last_warning[256];
    unsigned errors;
    unsigned warnings;
} es_tiff_messages;

static inline void es_tiff_messages_reset(es_tiff_messages *m) {
    m->first_error[0] = 0;
    m->last_warning[0] = 0;
    m->errors = 0;
    m->warnings = 0;
}

static inline const char *es_tiff_messages_first_error(const es_tiff_messages *m) { return m->first_error; }
static inline const char *es_tiff_messages_last_warning(const es_tiff_messages *m) { return m->last_warning; }

static int es_tiff_error_handler(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    es_tiff_messages *m = (es_tiff_messages *)user;
    if (m == NULL) return 0;
    if (m->errors++ == 0) {
        int n = snprintf(m->first_error, sizeof m->first_error, "%s: ", module ? module : "libtiff");
        if (n < 0 || (size_t)n >= sizeof m->first_error) n = 0;
        vsnprintf(m->first_error + n, sizeof m->first_error - (size_t)n, fmt, ap);
    }
    return 1;
}

static int es_tiff_warning_handler(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    es_tiff_messages *m = (es_tiff_messages *)user;
    if (m == NULL) return 0;
    m->warnings++;
    int n = snprintf(m->last_warning, sizeof m->last_warning, "%s: ", module ? module : "libtiff");
    if (n < 0 || (size_t)n >= sizeof m->last_warning) n = 0;
    vsnprintf(m->last_warning + n, sizeof m->last_warning - (size_t)n, fmt, ap);
    return 1;
}

/* TIFFOpenExt with this handle's messages collected in `messages` and no
 * single allocation larger than `max_single_allocation` bytes (0: libtiff's
 * default). */
static inline TIFF *es_tiff_open(const char *path, const char *mode, es_tiff_messages *messages,
                                 tmsize_t max_single_allocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, es_tiff_error_handler, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, es_tiff_warning_handler, messages);
    if (max_single_allocation > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_single_allocation);
    TIFF *tif = TIFFOpenExt(path, mode, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

/* Typed TIFFGetField / TIFFGetFieldDefaulted. Each returns 1 when the tag
 * is present (or has a default), else 0. */
static inline int es_tiff_get_uint16(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetField(tif, tag, value);
}
static inline int es_tiff_get_uint16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}
static inline int es_tiff_get_uint32(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetField(tif, tag, value);
}
static inline int es_tiff_get_uint32_defaulted(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}
/* An ASCII tag registered with passcount FALSE (GDAL_NODATA). */
static inline int es_tiff_get_ascii(TIFF *tif, uint32_t tag, const char **value) {
    return TIFFGetField(tif, tag, value);
}
/* A TIFF_DOUBLE tag registered with a TIFF_VARIABLE count (uint16), as
 * libgeotiff registers ModelPixelScale, ModelTiepoint and ModelTransformation. */
static inline int es_tiff_get_doubles(TIFF *tif, uint32_t tag, uint16_t *count, const double **values) {
    double *data = NULL;
    int ok = TIFFGetField(tif, tag, count, &data);
    *values = data;
    return ok;
}
/* ExtraSamples: a count and the values. */
static inline int es_tiff_get_extra_samples(TIFF *tif, uint16_t *count, const uint16_t **values) {
    uint16_t *data = NULL;
    int ok = TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, count, &data);
    *values = data;
    return ok;
}

/* Typed TIFFSetField. Each returns 1 on success. */
static inline int es_tiff_set_uint16(TIFF *tif, uint32_t tag, uint16_t value) {
    return TIFFSetField(tif, tag, (int)value);
}
static inline int es_tiff_set_uint32(TIFF *tif, uint32_t tag, uint32_t value) {
    return TIFFSetField(tif, tag, value);
}
static inline int es_tiff_set_ascii(TIFF *tif, uint32_t tag, const char *value) {
    return TIFFSetField(tif, tag, value);
}
static inline int es_tiff_set_doubles(TIFF *tif, uint32_t tag, uint16_t count, const double *values) {
    return TIFFSetField(tif, tag, (int)count, values);
}
static inline int es_tiff_set_extra_samples(TIFF *tif, uint16_t count, const uint16_t *values) {
    return TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (int)count, values);
}

/* GDAL's registration of its private tags (GDAL_METADATA, GDAL_NODATA):
 * ASCII, any length, no count argument. */
static inline int es_tiff_merge_gdal_tags(TIFF *tif) {
    static const TIFFFieldInfo info[] = {
        {ES_TIFFTAG_GDAL_METADATA, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, (char *)"GDALMetadata"},
        {ES_TIFFTAG_GDAL_NODATA, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, (char *)"GDALNoDataValue"},
    };
    return TIFFMergeFieldInfo(tif, info, sizeof info / sizeof info[0]);
}

#endif
