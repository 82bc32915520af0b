/* The registry of framings (framings.h). */
#include "framings.h"

const struct framing_ops *framing_for(bool http2)
{
    return http2 ? &framing_h2 : &framing_h1;
}

const struct framing_ops *framing_fallback(bool http2)
{
    return http2 ? &framing_h1 : NULL;
}
