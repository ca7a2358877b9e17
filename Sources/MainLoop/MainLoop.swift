/// MainLoop: the one GLib main-loop thread that drives libwebsockets and libnice.
public enum MainLoopModule {}
