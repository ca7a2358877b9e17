#ifndef CNICE_H
#define CNICE_H

/*
 * libnice for Swift, loaded on first use instead of at process start.
 *
 * The agent links no libnice: this target DEFINES the libnice functions the Swift code calls
 * (same names and prototypes as <nice/agent.h>), and each one forwards to the real function,
 * resolved with dlsym from dlopen("libnice.so.10", RTLD_NOW | RTLD_LOCAL), done once
 * (pthread_once) by whichever thread needs libnice first. An idle agent thus never maps libnice
 * nor the ~29 libraries only it pulls in (gupnp-igd, libsoup, GnuTLS, ICU, libxml2, ...).
 * The load is all or nothing: a library that lacks one of the functions below counts as not
 * loaded, so a forwarder never calls through a NULL pointer. Without the library a forwarder
 * returns 0 / NULL / FALSE (libnice's own failure values) or does nothing; callers check
 * cnice_library_load() first and report cnice_library_error().
 *
 * Also here: typed wrappers for what Swift cannot call (the g_signal_connect macro, the variadic
 * g_object_set/get), which go through GObject functions resolved from libnice's own scope, so the
 * agent links neither GObject nor GIO either. Only GLib is linked (the main loop uses it).
 *
 * Thread: any. The load runs at most once; the forwarders add one pthread_once check per call.
 */

#include <glib.h>
#include <nice/agent.h>
#include <nice/nice-version.h>

/* The soname the loader opens (Debian's libnice10). */
#define CNICE_LIBRARY_SONAME "libnice.so.10"

/* <nice/interfaces.h> includes <address.h> by a path only pkg-config's -I finds; its two functions
 * we use are declared here with the same prototypes. */
gchar *nice_interfaces_get_ip_for_interface(gchar *interface_name);
GList *nice_interfaces_get_local_ips(gboolean include_loopback);

/* ---- Loading ---- */

/* Loads libnice and resolves every function (once; later calls return the first outcome at once;
 * concurrent callers wait for the one load). Returns 1 when libnice is usable, 0 when not. */
int cnice_library_load(void);

/* 1 when a load has completed successfully, without starting one (for diagnostics). */
int cnice_library_is_loaded(void);

/* Why the load failed ("cannot load libnice.so.10: ..." or "libnice.so.10 lacks nice_..."), or
 * NULL when loaded or not tried yet. The text lives as long as the process. */
const char *cnice_library_error(void);

/* The file the loader mapped (symlinks resolved, e.g. /usr/lib/x86_64-linux-gnu/libnice.so.10.13.1),
 * or NULL when not loaded. */
const char *cnice_library_path(void);

/* Wall time the load took (dlopen + dlsym of every function), in milliseconds; 0 when not loaded. */
double cnice_library_load_milliseconds(void);

/* Opens `file` (a path or soname) on its own and checks that it has every function the loader
 * needs, without installing it: 1 when complete, else 0 with the reason in `error`. For tests of
 * the all-or-nothing rule; the handle is closed again. */
int cnice_library_probe(const char *file, char *error, size_t error_size);

/* ---- Signals and properties (each needs libnice loaded; without it they do nothing / return 0) ---- */

/* "component-state-changed": (agent, stream_id, component_id, NiceComponentState, user_data) */
typedef void (*cnice_component_state_changed_fn)(NiceAgent *agent, guint stream_id, guint component_id,
                                                 guint state, gpointer user_data);
/* "candidate-gathering-done": (agent, stream_id, user_data) */
typedef void (*cnice_candidate_gathering_done_fn)(NiceAgent *agent, guint stream_id, gpointer user_data);
/* "new-selected-pair-full": (agent, stream_id, component_id, local, remote, user_data) */
typedef void (*cnice_new_selected_pair_fn)(NiceAgent *agent, guint stream_id, guint component_id,
                                           NiceCandidate *local, NiceCandidate *remote, gpointer user_data);

/* Connect a typed handler to the agent's signal; the handler id (0 without libnice). */
gulong cnice_connect_component_state_changed(NiceAgent *agent, cnice_component_state_changed_fn fn, gpointer user_data);
gulong cnice_connect_candidate_gathering_done(NiceAgent *agent, cnice_candidate_gathering_done_fn fn, gpointer user_data);
gulong cnice_connect_new_selected_pair(NiceAgent *agent, cnice_new_selected_pair_fn fn, gpointer user_data);

/* Disconnects a handler returned by one of the connectors above (0 is ignored). */
void cnice_disconnect(NiceAgent *agent, gulong handler_id);

/* g_object_set of a single gboolean / guint / string property of the agent. */
void cnice_set_bool(NiceAgent *agent, const char *property, gboolean value);
void cnice_set_uint(NiceAgent *agent, const char *property, guint value);
void cnice_set_string(NiceAgent *agent, const char *property, const char *value);

/* g_object_get of a single gboolean property (for tests and diagnostics). */
gboolean cnice_get_bool(NiceAgent *agent, const char *property);

/* Drops the caller's reference to the agent. */
void cnice_agent_unref(NiceAgent *agent);

/* Frees a GSList of NiceCandidate* (as returned by nice_agent_get_local_candidates). */
void cnice_candidate_list_free(GSList *list);

/* ---- The selected pair's UDP socket, for sending media without libnice ---- */

/* Where media to the peer can go without libnice: a duplicate of the selected local candidate's
 * UDP socket and the selected remote address. */
typedef struct {
    /* A dup (close-on-exec) of libnice's socket: the caller owns it and closes it. Being a
     * duplicate, it stays valid when libnice closes its own descriptor, so it never names a
     * descriptor number some other open reused. */
    int fd;
    /* The selected remote candidate's address and its length. */
    struct sockaddr_storage remote;
    socklen_t remote_length;
} CNiceUDPRoute;

/* Fills `route` for the component's selected pair and returns 1 when that pair's local side is a
 * plain UDP socket (a host, server-reflexive or peer-reflexive candidate); returns 0 (and leaves
 * no descriptor open) when there is no selected pair yet, when it is relayed (TURN: libnice must
 * wrap each datagram) or TCP (RFC 4571 framing), or when libnice is not loaded. Any thread; the
 * agent takes its own lock for each query. */
int cnice_selected_udp_route(NiceAgent *agent, guint stream_id, guint component_id, CNiceUDPRoute *route);

#endif
