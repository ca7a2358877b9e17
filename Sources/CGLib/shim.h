#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>

/// A unix-fd source for `fd` and `condition` with `callback`, attached to `context`.
/// Wraps the cast of a GUnixFDSourceFunc to the GSourceFunc that g_source_set_callback takes
/// (Swift cannot express it). Returns the source with one reference owned by the caller.
static inline GSource *cglib_unix_fd_source_attach(GMainContext *context, gint fd, GIOCondition condition,
                                                   GUnixFDSourceFunc callback, gpointer data,
                                                   GDestroyNotify notify) {
    GSource *source = g_unix_fd_source_new(fd, condition);
    g_source_set_callback(source, (GSourceFunc)(void (*)(void))callback, data, notify);
    g_source_attach(source, context);
    return source;
}

#endif
