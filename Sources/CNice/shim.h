#ifndef CNICE_SHIM_H
#define CNICE_SHIM_H

#include <agent.h>
#include <interfaces.h>

/*
 * Typed wrappers for what Swift cannot call directly: the g_signal_connect macro (whose
 * GCallback handler type erases the signature), the variadic g_object_set and the
 * GDestroyNotify cast of g_slist_free_full. Each signal has its own handler typedef, so the
 * compiler checks the Swift closure against the signal's real C signature.
 */

/* "component-state-changed": (agent, stream_id, component_id, NiceComponentState, user_data) */
typedef void (*cnice_component_state_changed_fn)(NiceAgent *agent, guint stream_id, guint component_id,
                                                 guint state, gpointer user_data);
/* "candidate-gathering-done": (agent, stream_id, user_data) */
typedef void (*cnice_candidate_gathering_done_fn)(NiceAgent *agent, guint stream_id, gpointer user_data);
/* "new-selected-pair-full": (agent, stream_id, component_id, local, remote, user_data) */
typedef void (*cnice_new_selected_pair_fn)(NiceAgent *agent, guint stream_id, guint component_id,
                                           NiceCandidate *local, NiceCandidate *remote, gpointer user_data);

static inline gulong cnice_connect_component_state_changed(NiceAgent *agent, cnice_component_state_changed_fn fn,
                                                           gpointer user_data) {
    return g_signal_connect(agent, "component-state-changed", G_CALLBACK(fn), user_data);
}

static inline gulong cnice_connect_candidate_gathering_done(NiceAgent *agent, cnice_candidate_gathering_done_fn fn,
                                                            gpointer user_data) {
    return g_signal_connect(agent, "candidate-gathering-done", G_CALLBACK(fn), user_data);
}

static inline gulong cnice_connect_new_selected_pair(NiceAgent *agent, cnice_new_selected_pair_fn fn,
                                                     gpointer user_data) {
    return g_signal_connect(agent, "new-selected-pair-full", G_CALLBACK(fn), user_data);
}

/* Disconnects a handler returned by one of the connectors above (0 is ignored). */
static inline void cnice_disconnect(NiceAgent *agent, gulong handler_id) {
    if (handler_id != 0) g_signal_handler_disconnect(agent, handler_id);
}

/* g_object_set of a single gboolean / guint / string property of the agent. */
static inline void cnice_set_bool(NiceAgent *agent, const char *property, gboolean value) {
    g_object_set(G_OBJECT(agent), property, value, NULL);
}

static inline void cnice_set_uint(NiceAgent *agent, const char *property, guint value) {
    g_object_set(G_OBJECT(agent), property, value, NULL);
}

static inline void cnice_set_string(NiceAgent *agent, const char *property, const char *value) {
    g_object_set(G_OBJECT(agent), property, value, NULL);
}

/* g_object_get of a single gboolean property (for tests and diagnostics). */
static inline gboolean cnice_get_bool(NiceAgent *agent, const char *property) {
    gboolean value = FALSE;
    g_object_get(G_OBJECT(agent), property, &value, NULL);
    return value;
}

/* Drops the caller's reference to the agent. */
static inline void cnice_agent_unref(NiceAgent *agent) {
    g_object_unref(agent);
}

/* Frees a GSList of NiceCandidate* (as returned by nice_agent_get_local_candidates). */
static inline void cnice_candidate_list_free(GSList *list) {
    g_slist_free_full(list, (GDestroyNotify)nice_candidate_free);
}

#endif
