"""What h2_misbehave.py and h2_get.py share: the test byte pattern and h2's
connection with GOAWAY handling that lets the streams it spares finish."""
import h2.connection
import h2.errors
import h2.events

# Byte i of every test body is PATTERN[i % 64], as in tls_lib.sh's files.
PATTERN = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"


def pattern(n):
    """The first n bytes of the test pattern."""
    return (PATTERN * (n // 64 + 1))[:n]


class H2Connection(h2.connection.H2Connection):
    """h2's connection, except that a GOAWAY received does not close it.

    h2 4.1 moves to CLOSED on any GOAWAY and from then on rejects the frames
    of the streams up to its last_stream_id, which both sides may still send
    (a server its answers, a client the rest of its requests)."""

    def _receive_goaway_frame(self, frame):
        ev = h2.events.ConnectionTerminated()
        ev.error_code = h2.errors._error_code_from_int(frame.error_code)
        ev.last_stream_id = frame.last_stream_id
        ev.additional_data = frame.additional_data or None
        return [], [ev]
