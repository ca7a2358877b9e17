// The control protocol's values are JSONValues: clients of AgentControl see WCSJSON through it.
@_exported import WCSJSON
