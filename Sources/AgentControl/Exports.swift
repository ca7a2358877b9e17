// The control protocol's values are JSONValues: clients of AgentControl see WCSJSON through it.
@_exported import WCSJSON
// The system helpers (file descriptors, errno errors, socket addresses, the environment) that
// lived in AgentControl/System are in SystemSupport; AgentControl's clients keep seeing them.
@_exported import SystemSupport
