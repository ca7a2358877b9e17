/*
 * The selected pair's UDP socket and remote address (see cnice_selected_udp_route in CNice.h), so
 * the media clock can send RTP and RTCP with one sendto per packet instead of going through
 * nice_agent_send (agent lock, GSocket, GOutputVector per packet). libnice's own answer decides
 * what qualifies: nice_agent_get_selected_socket returns NULL for relayed and TCP pairs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "NiceFunctionTable.h"

/* The remote address of the selected pair, or 0 when there is none. */
static int selected_remote(NiceAgent *agent, guint stream_id, guint component_id, struct sockaddr_storage *remote,
                           socklen_t *length) {
    NiceCandidate *local = NULL, *peer = NULL;
    if (!nice_agent_get_selected_pair(agent, stream_id, component_id, &local, &peer) || local == NULL || peer == NULL) return 0;
    if (local->type == NICE_CANDIDATE_TYPE_RELAYED || local->transport != NICE_CANDIDATE_TRANSPORT_UDP) return 0;
    memset(remote, 0, sizeof *remote);
    nice_address_copy_to_sockaddr(&peer->addr, (struct sockaddr *)remote);
    switch (remote->ss_family) {
    case AF_INET: *length = sizeof(struct sockaddr_in); return 1;
    case AF_INET6: *length = sizeof(struct sockaddr_in6); return 1;
    default: return 0;
    }
}

int cnice_selected_udp_route(NiceAgent *agent, guint stream_id, guint component_id, CNiceUDPRoute *route) {
    route->fd = -1;
    if (agent == NULL || !cnice_library_load()) return 0;
    struct sockaddr_storage before, after;
    socklen_t before_length = 0, after_length = 0;
    if (!selected_remote(agent, stream_id, component_id, &before, &before_length)) return 0;
    GSocket *socket = nice_agent_get_selected_socket(agent, stream_id, component_id);
    if (socket == NULL) return 0;
    int fd = fcntl(cnice_functions.g_socket_get_fd(socket), F_DUPFD_CLOEXEC, 0);
    cnice_functions.g_object_unref(socket);
    if (fd < 0) return 0;
    /* The pair can change between the queries (checks read on the media clock thread); the socket
     * must belong to the remote we hand out, so ask again and give up on a change: the change's
     * own signal brings the caller back here. */
    if (!selected_remote(agent, stream_id, component_id, &after, &after_length) || after_length != before_length
        || memcmp(&before, &after, before_length) != 0) {
        close(fd);
        return 0;
    }
    route->remote = after;
    route->remote_length = after_length;
    route->fd = fd;
    return 1;
}
