// Noticing a client that closed its connection while its request waits with the connection
// suspended (libmicrohttpd polls no suspended socket).
#include <poll.h>
#include <stdint.h>

#ifndef POLLRDHUP
#define POLLRDHUP 0x2000  /* Linux: the peer closed its end (or shut down writing) */
#endif

/// Waits at most `timeout_ms` for a peer of the `count` sockets in `fds` to close (or the socket
/// to fail); sets `closed[i]` to 1 for each such socket, 0 for the others. Returns how many closed
/// (-1 on a poll error). At most 1024 sockets.
static inline int quanta_wait_for_peer_close(const int *fds, uint8_t *closed, int count, int timeout_ms) {
    struct pollfd polled[1024];
    if (count > 1024) count = 1024;
    for (int i = 0; i < count; i++) {
        polled[i].fd = fds[i];
        polled[i].events = POLLRDHUP;
        polled[i].revents = 0;
        closed[i] = 0;
    }
    int ready = poll(polled, (nfds_t)count, timeout_ms);
    if (ready <= 0) return ready;
    int found = 0;
    for (int i = 0; i < count; i++) {
        if (polled[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) {
            closed[i] = 1;
            found++;
        }
    }
    return found;
}
