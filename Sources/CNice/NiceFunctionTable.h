#ifndef CNICE_FUNCTION_TABLE_H
#define CNICE_FUNCTION_TABLE_H

/*
 * The functions the loader resolves from libnice's scope, as X-macro lists, and the table of
 * pointers they fill. Private to the CNice target. Adding a libnice function the Swift code calls:
 * one line in CNICE_RESULT_FUNCTIONS or CNICE_VOID_FUNCTIONS (the compiler then checks the line
 * against the prototype in <nice/agent.h>, and the loader requires the symbol).
 */

#include "include/CNice.h"

/* X(return type, name, (parameters), (arguments)): libnice functions that return a value. */
#define CNICE_RESULT_FUNCTIONS(X) \
    X(NiceAgent *, nice_agent_new_full, (GMainContext *ctx, NiceCompatibility compat, NiceAgentOption flags), \
      (ctx, compat, flags)) \
    X(gboolean, nice_agent_add_local_address, (NiceAgent *agent, NiceAddress *addr), (agent, addr)) \
    X(guint, nice_agent_add_stream, (NiceAgent *agent, guint n_components), (agent, n_components)) \
    X(gboolean, nice_agent_set_relay_info, \
      (NiceAgent *agent, guint stream_id, guint component_id, const gchar *server_ip, guint server_port, \
       const gchar *username, const gchar *password, NiceRelayType type), \
      (agent, stream_id, component_id, server_ip, server_port, username, password, type)) \
    X(gboolean, nice_agent_gather_candidates, (NiceAgent *agent, guint stream_id), (agent, stream_id)) \
    X(gboolean, nice_agent_set_remote_credentials, (NiceAgent *agent, guint stream_id, const gchar *ufrag, const gchar *pwd), \
      (agent, stream_id, ufrag, pwd)) \
    X(gboolean, nice_agent_get_local_credentials, (NiceAgent *agent, guint stream_id, gchar **ufrag, gchar **pwd), \
      (agent, stream_id, ufrag, pwd)) \
    X(int, nice_agent_set_remote_candidates, \
      (NiceAgent *agent, guint stream_id, guint component_id, const GSList *candidates), \
      (agent, stream_id, component_id, candidates)) \
    X(gint, nice_agent_send, (NiceAgent *agent, guint stream_id, guint component_id, guint len, const gchar *buf), \
      (agent, stream_id, component_id, len, buf)) \
    X(gboolean, nice_agent_get_selected_pair, \
      (NiceAgent *agent, guint stream_id, guint component_id, NiceCandidate **local, NiceCandidate **remote), \
      (agent, stream_id, component_id, local, remote)) \
    X(GSocket *, nice_agent_get_selected_socket, (NiceAgent *agent, guint stream_id, guint component_id), \
      (agent, stream_id, component_id)) \
    X(GSList *, nice_agent_get_local_candidates, (NiceAgent *agent, guint stream_id, guint component_id), \
      (agent, stream_id, component_id)) \
    X(gboolean, nice_agent_attach_recv, \
      (NiceAgent *agent, guint stream_id, guint component_id, GMainContext *ctx, NiceAgentRecvFunc func, gpointer data), \
      (agent, stream_id, component_id, ctx, func, data)) \
    X(gchar *, nice_agent_generate_local_candidate_sdp, (NiceAgent *agent, NiceCandidate *candidate), (agent, candidate)) \
    X(NiceCandidate *, nice_agent_parse_remote_candidate_sdp, (NiceAgent *agent, guint stream_id, const gchar *sdp), \
      (agent, stream_id, sdp)) \
    X(guint, nice_address_get_port, (const NiceAddress *addr), (addr)) \
    X(gboolean, nice_address_set_from_string, (NiceAddress *addr, const gchar *str), (addr, str)) \
    X(gchar *, nice_interfaces_get_ip_for_interface, (gchar *interface_name), (interface_name)) \
    X(GList *, nice_interfaces_get_local_ips, (gboolean include_loopback), (include_loopback))

/* X(name, (parameters), (arguments)): libnice functions without a result. */
#define CNICE_VOID_FUNCTIONS(X) \
    X(nice_agent_close_async, (NiceAgent *agent, GAsyncReadyCallback callback, gpointer callback_data), \
      (agent, callback, callback_data)) \
    X(nice_address_init, (NiceAddress *addr), (addr)) \
    X(nice_address_to_string, (const NiceAddress *addr, gchar *dst), (addr, dst)) \
    X(nice_address_copy_to_sockaddr, (const NiceAddress *addr, struct sockaddr *sin), (addr, sin)) \
    X(nice_candidate_free, (NiceCandidate *candidate), (candidate))

/* X(name): GObject (and GIO) functions the wrappers use, found through libnice's dependencies. */
#define CNICE_GOBJECT_FUNCTIONS(X) \
    X(g_socket_get_fd) \
    X(g_signal_connect_data) \
    X(g_signal_handler_disconnect) \
    X(g_object_set) \
    X(g_object_get) \
    X(g_object_unref)

#define CNICE_RESULT_SLOT(type, name, parameters, arguments) __typeof__(name) *name;
#define CNICE_VOID_SLOT(name, parameters, arguments) __typeof__(name) *name;
#define CNICE_GOBJECT_SLOT(name) __typeof__(name) *name;

/* One pointer per function, typed from the headers' own prototypes. */
typedef struct {
    CNICE_RESULT_FUNCTIONS(CNICE_RESULT_SLOT)
    CNICE_VOID_FUNCTIONS(CNICE_VOID_SLOT)
    CNICE_GOBJECT_FUNCTIONS(CNICE_GOBJECT_SLOT)
} CNiceFunctionTable;

/* The table of the loaded library; complete once cnice_library_load() returned 1, never written after. */
extern CNiceFunctionTable cnice_functions;

#endif
