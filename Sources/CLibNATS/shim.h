/*
 * The C surface of libnats (Debian's libnats-dev, the NATS C client with
 * JetStream) that Swift sees. Only the JetStream module imports it.
 */
#ifndef ENTITYSTREAM_NATS_SHIM_H
#define ENTITYSTREAM_NATS_SHIM_H

#include <nats/nats.h>

#endif
