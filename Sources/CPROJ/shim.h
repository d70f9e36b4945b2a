/*
 * The C surface of PROJ that Swift sees (Debian: libproj-dev, pkg-config proj;
 * its database proj.db comes with proj-data, a dependency of libproj25).
 *
 * A context is created with network access (remote grids) disabled, so a
 * transformation never reaches the network: it uses the grids installed
 * locally or PROJ's next-best operation. PROJ's log messages are collected
 * into a caller-owned buffer instead of being printed to stderr.
 * Only the Projection module imports this module; others reach PROJ through it.
 */
#ifndef ENTITYSTREAM_PROJ_SHIM_H
#define ENTITYSTREAM_PROJ_SHIM_H

#include <proj.h>
#include <stdio.h>
#include <string.h>

/* The last error PROJ logged on one context. */
typedef struct es_proj_messages {
    char last_error[512];
    unsigned errors;
} es_proj_messages;

static inline const char *es_proj_messages_last_error(const es_proj_messages *m) { return m->last_error; }

static void es_proj_log(void *user, int level, const char *message) {
    es_proj_messages *m = (es_proj_messages *)user;
    if (m == NULL || message == NULL || level > PJ_LOG_ERROR) return;
    m->errors++;
    snprintf(m->last_error, sizeof m->last_error, "%s", message);
}

/* A PROJ context of its own (PROJ contexts are not thread-safe), with
 * network grids disabled and errors logged into `messages` (which must
 * outlive the context). */
static inline PJ_CONTEXT *es_proj_context_create(es_proj_messages *messages) {
    messages->last_error[0] = 0;
    messages->errors = 0;
    PJ_CONTEXT *context = proj_context_create();
    if (context == NULL) return NULL;
    proj_context_set_enable_network(context, 0);
    proj_log_level(context, PJ_LOG_ERROR);
    proj_log_func(context, messages, es_proj_log);
    return context;
}

#endif
