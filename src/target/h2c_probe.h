/* The start-up probe of --h2c: HTTP/2 in cleartext is spoken by prior
 * knowledge, so a server that only speaks HTTP/1.1 accepts the connect and
 * would fail every request of the run. The probe sends the connection
 * preface and stops the run at once when no SETTINGS frame comes back. */
#ifndef VOLLEY_H2C_PROBE_H
#define VOLLEY_H2C_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Connects to addr (from src unless NULL, as net_connect_from binds it),
 * writes the client connection preface and an empty SETTINGS frame, and
 * waits up to timeout_ns for the server's first frame, which RFC 9113 3.4
 * says is SETTINGS; then says goodbye (GOAWAY) and closes. Returns 0 when
 * it came, or -1 with one line in err naming the address: the connect's
 * failure, or "ADDR: no HTTP/2 SETTINGS after the preface: does it speak
 * h2c?" for an answer of anything else, a close or silence. */
int h2c_probe(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src, socklen_t srclen,
              int64_t timeout_ns, char *err, size_t errlen);

#endif
