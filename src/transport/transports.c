/* The registry of transports (transport.h): the one place a transport is
 * chosen, and so the one line a new one adds. */
#include "transport.h"

const struct transport_ops *transport_for(bool https)
{
    return https ? &transport_tls : &transport_tcp;
}
