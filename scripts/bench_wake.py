"""Wake latencies of a sleeping agent, for `make bench` (tries in a row; the caller takes percentiles).

One try: the agent sleeps (`wcs-agent sleep`; the server keeps the session), the emulator rings it
(its aiortc leg plays a tone), the push runs `wcs-agent reconnect`, the agent resumes by token,
answers automatically and decodes the caller's first frame; then the caller hangs up.

- push -> session resumed: from the emulator's push time (GET /pushes, wall clock) to the arrival
  of the agent's `resumed` event on `wcs-agent events` (wall clock, same machine);
- push -> first audio: to the `media` event with step `first_audio`;
- offer -> first decoded audio: that event's own `latency_ms` (the agent starts timing when it
  takes the offer in hand to answer);
- `reconnect` wall time: `wcs-agent reconnect` run by hand while asleep, exit to exit.
"""
import time


def wake_once(rig, agent):
    """One try; returns {push_to_resumed, push_to_first_audio, offer_to_first_audio} in ms."""
    agent.sleep()
    agent.events.drain()
    ring = rig.control("POST", "/ring", {"login": agent.login, "caller": "2000", "source": "tone:440"})
    call_id = ring["callId"]
    resumed, _ = agent.events.next(lambda e: e.get("type") == "resumed")
    first, event = agent.events.next(lambda e: e.get("type") == "media" and e.get("step") == "first_audio"
                                     and e.get("call_id") == call_id)
    pushes = [p for p in rig.control("GET", f"/pushes?login={agent.login}") if p.get("callId") == call_id]
    pushed = pushes[0]["time"]
    rig.control("POST", "/hangup", {"callId": call_id})
    agent.events.next(lambda e: e.get("type") == "call_ended" and e.get("call_id") == call_id)
    return {"push_to_resumed": (resumed - pushed) * 1000, "push_to_first_audio": (first - pushed) * 1000,
            "offer_to_first_audio": event.get("latency_ms")}


def wake_tries(rig, agent, tries):
    """`tries` wake tries; returns lists of the three figures (failed tries are counted and skipped)."""
    rig.set_push_target(agent)
    result = {"push_to_resumed": [], "push_to_first_audio": [], "offer_to_first_audio": [], "failed": 0}
    for _ in range(tries):
        try:
            one = wake_once(rig, agent)
        except (TimeoutError, RuntimeError, IndexError) as error:
            result["failed"] += 1
            result.setdefault("errors", []).append(str(error))
            time.sleep(1)
            continue
        for key, value in one.items():
            if value is not None:
                result[key].append(value)
    return result


def reconnect_times(agent, tries):
    """Wall time of `wcs-agent reconnect` on a sleeping agent, `tries` times (ms)."""
    times = []
    for _ in range(tries):
        agent.sleep()
        times.append(agent.command("reconnect"))
        agent.events.drain()
    return times
