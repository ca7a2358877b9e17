"""Formats `make bench` results: the issue-9 table (goal, measured, ratio) and the scaling table."""
from bench_proc import percentile
from bench_scaling import clock_threads


def _num(value, digits=1):
    if value is None:
        return "–"
    return f"{value:.{digits}f}"


def _pair(values, digits=1):
    return f"{_num(percentile(values, 0.5), digits)} / {_num(percentile(values, 0.95), digits)}"


def _wake_text(figures, key):
    """p50 / p95 of a wake figure; push → resumed and push → first audio (the agent's own `time_us`)
    add the figure at the bench (the event's arrival through `wcs-agent events`), the definitions
    before 2026-12-01 (resumed) and 2026-12-02 (first audio)."""
    text = _pair(figures[key])
    if key in ("push_to_resumed", "push_to_first_audio") and figures.get(f"{key}_relay"):
        text += f" (at the bench {_pair(figures[key + '_relay'])})"
    return text


def _median(values):
    return percentile(values, 0.5)


def _verdict(measured, goal, lower_is_better=True):
    if measured is None or goal is None or goal == 0:
        return "–", "–"
    ratio = measured / goal
    met = ratio <= 1 if lower_is_better else ratio >= 1
    return f"{ratio:.2f}", "yes" if met else "no"


def main_rows(r):
    """(figure, goal text, wcs-agent, ratio, meets goal, aiortc answerer, floor) rows."""
    floor = r["floor"]["cpu_percent"]
    agent_rows, aiortc, wake, pesq = r["agent_scaling"], r["aiortc"], r["wake"], r["pesq"]
    one = agent_rows[0] if agent_rows and "error" not in agent_rows[0] else {}
    rows = []

    def add(figure, goal_text, measured_text, ratio_pair, aiortc_text="–", floor_text="–", floor_ratio="–"):
        rows.append((figure, goal_text, measured_text, *ratio_pair, floor_ratio, aiortc_text, floor_text))

    cpu_goal = 1.25 * floor
    add("CPU per call (% of a core)", f"≤ 1.25 × floor = {cpu_goal:.2f}", _num(one.get("cpu"), 2),
        _verdict(one.get("cpu"), cpu_goal), _num(aiortc.get("call_cpu"), 2),
        f"libopus enc+dec {floor:.2f} (complexity {r['floor']['complexity']})", _per_floor(one.get("cpu"), floor))
    fit = r.get("added_call_fit") or {"slope": r.get("added_call_cost"), "rows": []}
    slope = fit["slope"]
    fitted = ""
    if fit["rows"]:
        fitted = f" (fit on rows {', '.join(map(str, fit['rows']))}: {fit.get('basis', 'carried')})"
    add("cost of each added call (% of a core)", _goal_against_floor(1.0, floor, "≤ 1.0"), _num(slope, 2) + fitted,
        _verdict(slope, 1.0), "–", f"{floor:.2f}", _per_floor(slope, floor))
    add("RSS idle (MB)", "≤ 15", _num(r["agent_idle"]["rss"]), _verdict(r["agent_idle"]["rss"], 15),
        _num(aiortc.get("idle_rss")))
    add("RSS in one call (MB)", "≤ 20", _num(one.get("rss")), _verdict(one.get("rss"), 20), _num(aiortc.get("call_rss")))
    first = _median(wake["offer_to_first_audio"])
    add("offer → first decoded audio, median (ms)", "≤ 50", _num(first), _verdict(first, 50),
        _num(_median(aiortc.get("first_audio", []))))
    for key, label, goal in (("push_to_resumed", "push → session resumed", 10),
                             ("reconnect", "`reconnect` command wall time", 15),
                             ("push_to_first_audio", "push → first audio", 60)):
        for how, figures in (("", wake), (" by webhook", wake.get("webhook")), (" over wss", wake.get("wss"))):
            values = (figures or {}).get(key)
            if values is None:  # the webhook series: the same push into the agent's webhook, no process
                continue
            add(f"{label}{how}, p50 / p95 (ms, {len(values)} tries)", f"p95 ≤ {goal}", _wake_text(figures, key),
                _verdict(percentile(values, 0.95), goal))
    for key, label, goal, goal_text in (
            ("clean", "PESQ-WB, clean", 4.38, "keep (4.38 before)"),
            ("impaired_fec", "PESQ-WB, 5 % loss + 0-30 ms jitter, caller sends FEC (as libwebrtc)", 3.3, "≥ 3.3"),
            ("impaired", "PESQ-WB, 5 % loss + 0-30 ms jitter, caller without FEC (aiortc)", 3.3, "≥ 3.3")):
        score = pesq.get(key, {}).get("pesq_wb")
        receive = pesq.get(key, {}).get("receive") or {}
        detail = ""
        if receive.get("concealed_frames") is not None:
            detail = f" ({receive['concealed_frames']} concealed, {receive.get('fec_recovered_frames') or 0} from FEC)"
        add(label, goal_text, (_num(score, 2) + detail) if score is not None else pesq.get("error", "–"),
            _verdict(score, goal, lower_is_better=False))
    replayed = pesq.get("replayed") or {}
    for key, label in (("fec", "caller sends FEC"), ("nofec", "caller without FEC")):
        tick, ideal = replayed.get(f"{key}_tick") or {}, replayed.get(f"{key}_ideal") or {}
        score = tick.get("pesq_wb")
        text = replayed.get("error", pesq.get("error", "–"))
        if score is not None:
            text = (f"{score:.2f} ({tick['min']:.2f}–{tick['max']:.2f} over {len(tick['runs'])} clock phases"
                    + (f"; no jitter: {ideal['pesq_wb']:.2f}" if ideal.get("pesq_wb") is not None else "") + ")")
        add(f"PESQ-WB, 5 % loss + 0-30 ms jitter, {label}, replayed (deterministic)", "≥ 3.3", text,
            _verdict(score, 3.3, lower_is_better=False))
    # the agent's own 64-call row when it has one, else AudioPipe alone (the same media code)
    big, who = next(((row, "wcs-agent") for row in r["agent_scaling"] if row["calls"] == 64), (None, None))
    if big is None or "error" in big:
        big, who = next(((row, "AudioPipe alone") for row in r["audiopipe_scaling"] if row["calls"] == 64), (big, who))
    big_goal = _goal_against_floor(100, 64 * floor, "≤ 100 % of a core", "64 × floor") + ", no late frame"
    if big and "error" in big:
        add("64 calls in one process", big_goal, big["error"][:60], ("–", "no"), floor_text=f"64 × floor = {64 * floor:.1f}")
    elif big:
        late = big["send"].get("late")
        clocks = clock_threads(big)
        text = (f"{who}: {big['cpu']:.1f} % CPU"
                + (f" (clock threads {' + '.join(f'{v:.0f}' for v in clocks.values())} %)" if clocks else "")
                + f", {big['rss']:.0f} MB, {late if late is not None else '?'} late, machine {big['machine_busy']:.0f} % busy")
        meets = "yes" if big["cpu"] <= 100 and late == 0 else "no"
        add("64 calls in one process", big_goal, text, (f"{big['cpu'] / 100:.2f}", meets),
            floor_text=f"64 × floor = {64 * floor:.1f}", floor_ratio=_per_floor(big["cpu"], 64 * floor))
    return rows


def _per_floor(measured, floor):
    """measured ÷ floor (the codec's own cost measured in the same run: the yardstick)."""
    return "–" if measured is None or not floor else f"{measured / floor:.2f}"


def _goal_against_floor(goal, floor, text, floor_name="floor"):
    """The goal's text, saying when the goal is below the codec floor measured in this run."""
    if floor and goal < floor:
        return f"{text} (= {goal / floor:.2f} × {floor_name}: below it)"
    return text


def render(headers, rows):
    widths = [max(len(str(h)), *(len(str(row[i])) for row in rows)) for i, h in enumerate(headers)]
    lines = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join(lines)


def main_table(results):
    return render(("figure", "goal", "wcs-agent", "ratio", "meets", "× floor", "aiortc 1.4 answerer", "floor"),
                  main_rows(results))


def scaling_table(rows, who, others_label, floor=None):
    """One row per call count; `× floor` = CPU ÷ (calls × the Opus floor of this run); `fit` = the
    row is in the added-call fit (bench_scaling.added_call_fit)."""
    out = []
    for row in rows:
        if "error" in row:
            out.append((row["calls"], row["error"][:70], *[""] * 12))
            continue
        send = row["send"]
        late = "–" if "error" in send else f"{send['late']} / {send['packets']}"
        due = f"{send['packets']} / {int(row['calls'] * 50 * row['seconds'])}" if "error" not in send else "–"
        jitter = "–" if "error" in send else _num(send["jitter_p99_ms"], 2)
        others = " / ".join(f"{v:.1f}" for v in row["others_cpu"].values())
        clocks = clock_threads(row)
        out.append((row["calls"], _num(row["cpu"], 1), _num(row["cpu"] / row["calls"], 2),
                    _per_floor(row["cpu"], row["calls"] * floor if floor else None), len(clocks) or "–",
                    " + ".join(f"{v:.1f}" for v in clocks.values()) or "–", _num(row["rss"]),
                    due, jitter, late, others, f"{row['machine_busy']:.0f} %", f"{row['load']:.1f}",
                    "yes" if row.get("fit") else "no"))
    return render(("calls", f"{who} CPU %", "per call", "× floor", "clock threads", "clock thread %", "RSS MB", "RTP sent / due",
                   "send jitter p99 ms", "late / sent", others_label, "machine busy", "load avg", "fit"), out)


def far_end_note(rows):
    """One line on what the far ends received and decoded in the biggest row that ran."""
    ran = [row for row in rows if "error" not in row and row.get("far_end")]
    if not ran:
        return ""
    row = ran[-1]
    far = row["far_end"]
    text = f"Far ends at {row['calls']} calls: {far['received']} RTP packets received, {far['lost']} lost"
    if "decoded" in far:
        text += (f"; cheap peer: {far['decoded']} decoded by libopus (RMS {far['quietest_db']:.1f} to "
                 f"{far['loudest_db']:.1f} dBFS), {far['checked']} TOC-checked only, {far['failed']} refused")
    return text + "."


def fit_note(fit):
    """How the cost of each added call was fitted, and where one media clock thread fills up."""
    if not fit:
        return ""
    if fit["slope"] is None:
        return (f"Cost of each added call: not fitted, fewer than two rows where the process kept pace ({fit['rule']}); "
                f"over all rows that ran: {_num(fit['slope_all_rows'], 2)}.")
    which = ("those the machine carried" if fit["basis"] == "carried" else
             "those where the process kept pace: fewer than two rows had the machine ≤ 90 % busy")
    text = (f"Cost of each added call: {_num(fit['slope'], 2)} % of a core, fitted on the rows marked fit, {which} "
            f"({fit['rule']}); over all rows that ran: {_num(fit['slope_all_rows'], 2)}.")
    if fit.get("clock_thread_slope"):
        text += (f"\nBusiest media clock thread: {fit['clock_thread_slope']:.2f} % of a core per added call on the same rows, "
                 f"so one clock thread alone would be 100 % busy at about {fit['clock_thread_saturates_at']:.0f} calls; "
                 "the agent starts another one when the first is busy, up to one per CPU (MediaClockPool).")
    return text
