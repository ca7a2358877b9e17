#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <sys/prctl.h>

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

/// Names the calling thread for the kernel (`/proc/PID/task/TID/comm`, at most 15 bytes kept).
/// Wraps prctl(PR_SET_NAME), which is variadic (Swift cannot call it); pthread_setname_np needs
/// _GNU_SOURCE, which Swift's Glibc module does not define. Returns 0 on success.
static inline int cglib_set_current_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

#endif
