/*
 * The C surface of libwebsockets that Swift sees.
 *
 * Swift imports functions, structs and enums from <libwebsockets.h>
 * directly; what it cannot import are function-like and computed macros.
 * This shim restates the ones the transport needs as static inline
 * functions. Nothing above the Transport module imports this module.
 */
#ifndef ENTITYSTREAM_LWS_SHIM_H
#define ENTITYSTREAM_LWS_SHIM_H

#include <libwebsockets.h>
#include <malloc.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

/* Headroom lws needs in front of every buffer passed to lws_write(). */
static inline size_t es_lws_pre(void) { return LWS_PRE; }

/* The "no listening port" sentinel for client-only contexts. */
static inline int es_context_port_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }

/* Log level bits, so Swift can pick what lws prints to stderr. */
static inline int es_log_level_errors(void) { return LLL_ERR; }
static inline int es_log_level_warnings(void) { return LLL_ERR | LLL_WARN; }

/* Allocator settings for a streaming program (see MallocTuning in Transport):
 * glibc's mallopt is not visible through Swift's Glibc module. */
static inline void es_keep_batch_buffers_in_heap(void) {
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
}

/* The verdict OpenSSL reached on a server certificate, from the X509_STORE_CTX
 * libwebsockets hands to LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION
 * (OpenSSL comes with libwebsockets; only this shim reaches it). */
static inline int es_x509_verify_error(void *store) {
    return store ? X509_STORE_CTX_get_error((X509_STORE_CTX *)store) : 0;
}
static inline const char *es_x509_verify_error_text(int code) { return X509_verify_cert_error_string(code); }

#endif
