/*
 * Typed wrappers for what Swift cannot call directly: the g_signal_connect macro (whose GCallback
 * handler type erases the signature), the variadic g_object_set/get and the GDestroyNotify cast of
 * g_slist_free_full. Each signal has its own handler typedef, so the compiler checks the Swift
 * closure against the signal's real C signature. GObject comes from libnice's scope (the agent
 * links only GLib), so every wrapper needs the library loaded: an agent pointer proves it was.
 */
#include "NiceFunctionTable.h"

static gulong connect_signal(NiceAgent *agent, const char *signal, GCallback handler, gpointer user_data) {
    if (!cnice_library_load()) return 0;
    return cnice_functions.g_signal_connect_data(agent, signal, handler, user_data, NULL, (GConnectFlags)0);
}

gulong cnice_connect_component_state_changed(NiceAgent *agent, cnice_component_state_changed_fn fn, gpointer user_data) {
    return connect_signal(agent, "component-state-changed", G_CALLBACK(fn), user_data);
}

gulong cnice_connect_candidate_gathering_done(NiceAgent *agent, cnice_candidate_gathering_done_fn fn, gpointer user_data) {
    return connect_signal(agent, "candidate-gathering-done", G_CALLBACK(fn), user_data);
}

gulong cnice_connect_new_selected_pair(NiceAgent *agent, cnice_new_selected_pair_fn fn, gpointer user_data) {
    return connect_signal(agent, "new-selected-pair-full", G_CALLBACK(fn), user_data);
}

void cnice_disconnect(NiceAgent *agent, gulong handler_id) {
    if (handler_id != 0 && cnice_library_load()) cnice_functions.g_signal_handler_disconnect(agent, handler_id);
}

void cnice_set_bool(NiceAgent *agent, const char *property, gboolean value) {
    if (cnice_library_load()) cnice_functions.g_object_set(agent, property, value, NULL);
}

void cnice_set_uint(NiceAgent *agent, const char *property, guint value) {
    if (cnice_library_load()) cnice_functions.g_object_set(agent, property, value, NULL);
}

void cnice_set_string(NiceAgent *agent, const char *property, const char *value) {
    if (cnice_library_load()) cnice_functions.g_object_set(agent, property, value, NULL);
}

gboolean cnice_get_bool(NiceAgent *agent, const char *property) {
    gboolean value = FALSE;
    if (cnice_library_load()) cnice_functions.g_object_get(agent, property, &value, NULL);
    return value;
}

void cnice_agent_unref(NiceAgent *agent) {
    if (cnice_library_load()) cnice_functions.g_object_unref(agent);
}

void cnice_candidate_list_free(GSList *list) {
    /* nice_candidate_free is the forwarder (NiceForwarders.c). */
    g_slist_free_full(list, (GDestroyNotify)nice_candidate_free);
}
