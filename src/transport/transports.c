/* The registry of transports (transport.h): the one place a transport is
 * chosen, and so the one line a new one adds. */
#include "transport.h"

const struct transport_ops *transport_for(const struct transport_config *cfg)
{
    if (!cfg->tls)
        return &transport_tcp; /* through a proxy too: the requests are in absolute-form */
    return cfg->tunnel ? &transport_tunnel_tls : &transport_tls;
}

const struct transport_ops *transport_direct(bool tls)
{
    return tls ? &transport_tls : &transport_tcp;
}
