// JSONValue lives in WCSJSON (no heavy dependencies) so the lean `wcs-agent` front and the control
// protocol module can use it; every client of WCSSession still sees it through this import.
@_exported import WCSJSON
