"""wcsemu: a loopback emulator of a Flashphoner Web Call Server (WCS) for tests.

The emulator speaks the WCS client WebSocket protocol (see docs/wcs-protocol.md) and fakes the SIP side
(a PBX with known users, callers and callees). Tests drive the SIP side through a small HTTP control API.

Modules:
    settings    command-line flags and the run-time settings object
    frames      WCS frame encoding/decoding and secret redaction
    model       Session and Call records and their JSON views
    sdp         SDP helpers and the fixed (signaling-only) media engine
    media       the media-engine interface and the engine factory
    media_webrtc the aiortc media engine: a real WebRTC leg (default)
    audio       media sources (tone, file, silence) and the WAV recorder for the aiortc engine
    connection  one client WebSocket: framing, ping/pong, silence switches
    variants    server variants: behaviours a real WCS may show where the protocol is open
    variant_settings  flags and run-time settings of the variants
    ice_lite    ICE-lite for the aiortc leg (variant --ice-lite)
    sessions    session lifecycle: login, registration, keepAlive, token resume, expiry
    calls       call flows: incoming, outgoing, hold, DTMF, transfer, hangup
    push        out-of-band push delivery for detached sessions
    control     the HTTP/1.1 JSON control API
    core        the Emulator object that ties everything together
    main        process entry: flags, servers, ready line, signals
"""
