// `Log` and the other system helpers moved to SystemSupport (no GLib); `import MainLoop` keeps
// giving them to the code that used them from here.
@_exported import SystemSupport
