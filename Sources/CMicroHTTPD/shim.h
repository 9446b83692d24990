// libmicrohttpd (Debian's libmicrohttpd-dev) for Swift. `MHD_start_daemon` takes its options as
// C variadic arguments, which Swift cannot pass, so the one start the server needs is a
// fixed-argument inline wrapper here.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Starts a daemon with one internal polling thread and suspend/resume, bound to `address`
/// (IPv4 or IPv6, `address_length` bytes), calling `handler` for requests and `completed` when a
/// request ends (normally or not). At most `connection_limit` connections are open at once;
/// `memory_limit` bytes per connection bound headers and each upload chunk.
static inline struct MHD_Daemon *quanta_mhd_start(const struct sockaddr *address, int ipv6,
                                                  MHD_AccessHandlerCallback handler, void *handler_context,
                                                  MHD_RequestCompletedCallback completed, void *completed_context,
                                                  unsigned int connection_limit, size_t memory_limit) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)600,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (what the kernel chose for port 0).
static inline uint16_t quanta_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The socket of `connection` (-1 if libmicrohttpd does not say).
static inline int quanta_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
