"""The final report of a match or tournament: in the terminal (rich) and as Markdown (``report.md``).

Both show the same things: the rating list, each pairing with its Elo ± from the
pentanomial counts, LOS and draw ratio (in the words cutechess and fastchess
print, so their users can read it at a glance), how the games ended, time losses
and faults per engine, and the SPRT's verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from rich.console import Group, JustifyMethod, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from engine.termination import Termination
from matches.live import format_duration, format_nelo, format_ptnml, sprt_percent
from matches.standings import EngineStanding, PairingStanding, Standings


def _num(x: float, fmt: str = "+.1f") -> str:
    return "-" if math.isnan(x) else format(x, fmt)


def tournament_title(config: dict[str, Any]) -> str:
    """``match: a vs b, tc 0.1s`` or ``round-robin: a, b, c, tc 0.1s`` (a ``"name"`` in the config wins)."""
    if config.get("name"):
        return str(config["name"])
    names = [str(e.get("name", "?")) for e in config.get("engines", []) if isinstance(e, dict)]
    fmt = str(config.get("format") or "tournament")
    joined = " vs ".join(names) if len(names) == 2 else ", ".join(names)
    title = f"{fmt}: {joined}" if joined else fmt
    tc = config.get("time_control")
    return f"{title}, tc {tc}" if tc else title


def summary_line(standings: Standings) -> str:
    """``100 games in 12:34 (8.0 games/min)``, with the schedule size when the run stopped early."""
    done, total = standings.games_done, standings.games_total
    games = f"{done} of {total} games" if total is not None and total != done else f"{done} games"
    return f"{games} in {format_duration(standings.elapsed)} ({standings.games_per_minute:.1f} games/min)"


def first_move_line(standings: Standings) -> str | None:
    fma = standings.first_move_advantage
    if fma is None or math.isnan(fma):
        return None
    return f"First-move (Black) advantage: {fma:+.1f} Elo"


def pairing_lines(p: PairingStanding) -> list[str]:
    """cutechess/fastchess-style lines for one pairing."""
    games = p.games
    score = p.points / games if games else 0.5
    lines = [f"Score of {p.first} vs {p.second}: {p.wins} - {p.losses} - {p.draws} [{score:.3f}] {games}"]
    est = p.estimate
    draw_ratio = 100 * p.draws / games if games else 0.0
    if est is not None:
        lines.append(f"Elo difference: {est.elo:.1f} +/- {est.margin:.1f}, nElo: {format_nelo(est.nelo)} "
                     f"+/- {est.nelo_margin:.1f}, LOS: {100 * est.los:.1f} %, DrawRatio: {draw_ratio:.1f} %")
    if sum(p.pentanomial):
        lines.append(f"Ptnml(0-2): {format_ptnml(p.pentanomial)}")
    return lines


def sprt_verdict(standings: Standings, config: dict[str, Any] | None = None) -> str | None:
    """``SPRT: llr 2.95 (100.2%), lbound -2.94, ubound 2.94 - H1 was accepted`` (None without an SPRT)."""
    st = standings.sprt
    if st is None:
        return None
    line = (f"SPRT: llr {st.llr:.3g} ({sprt_percent(st.llr, st.lower, st.upper):.1f}%), "
            f"lbound {st.lower:.3g}, ubound {st.upper:.3g}")
    test = (config or {}).get("sprt")
    if isinstance(test, dict) and "elo0" in test and "elo1" in test:
        model = test.get("model", "normalized")
        unit = "nElo" if model == "normalized" else "Elo"
        line += f" [{test['elo0']}, {test['elo1']}] {unit} ({model})"
    if st.decision == "H1":
        return line + " - H1 was accepted"
    if st.decision == "H0":
        return line + " - H0 was accepted"
    return line + " - no decision"


def fault_rows(standings: Standings) -> list[EngineStanding]:
    """Engines with any time loss or fault."""
    return [s for s in standings.engines if s.time_forfeits or s.faults]


# Terminal.


def rating_table(standings: Standings) -> Table:
    table = Table(title="Rating list", title_justify="left", title_style="bold", header_style="bold")
    for header, justify in [
        ("Rank", "right"), ("Name", "left"), ("Elo", "right"), ("±", "right"), ("nElo", "right"),
        ("Games", "right"), ("Points", "right"), ("Score", "right"), ("W/D/L", "right"), ("Draw", "right"),
        ("Ptnml(0-2)", "right"),
    ]:
        table.add_column(header, justify=cast(JustifyMethod, justify), no_wrap=True)
    for rank, s in enumerate(standings.engines, 1):
        table.add_row(
            str(rank), Text(s.name), _num(s.elo), _num(s.margin, ".1f"), format_nelo(s.nelo), str(s.games),
            f"{s.points:g}", f"{100 * s.score:.1f}%", f"{s.wins}/{s.draws}/{s.losses}",
            f"{100 * s.draw_ratio:.1f}%", format_ptnml(s.pentanomial),
        )
    return table


def endings_table(standings: Standings) -> Table:
    table = Table(title="Endings", title_justify="left", title_style="bold", header_style="bold")
    table.add_column("ending")
    table.add_column("games", justify="right")
    table.add_column("share", justify="right")
    for ending, count in standings.endings.items():
        share = f"{100 * count / max(standings.games_done, 1):.1f}%"
        table.add_row(Text(Termination(ending).label), str(count), share)
    return table


def faults_table(rows: Sequence[EngineStanding]) -> Table:
    table = Table(title="Time losses and faults", title_justify="left", title_style="bold",
                  header_style="bold")
    for header in ("engine", "time losses", "crashes", "stalls", "illegal moves", "protocol errors"):
        table.add_column(header, justify="left" if header == "engine" else "right")
    for s in rows:
        table.add_row(Text(s.name), str(s.time_forfeits), str(s.crashes), str(s.stalls), str(s.illegal_moves),
                      str(s.protocol_errors))
    return table


def render_text(standings: Standings, *, title: str, config: dict[str, Any] | None = None) -> RenderableType:
    """The final report for the terminal (``config``, when given, adds the SPRT's bounds)."""
    parts: list[RenderableType] = [Rule(Text(title, style="bold"), align="left"),
                                   Text(summary_line(standings))]
    fma = first_move_line(standings)
    if fma:
        parts.append(Text(fma))
    parts.append(rating_table(standings))
    if standings.pairings:
        parts.append(Text("Pairings", style="bold"))
        for p in standings.pairings:
            parts.append(Text("\n".join(pairing_lines(p))))
    if standings.endings:
        parts.append(endings_table(standings))
    rows = fault_rows(standings)
    parts.append(faults_table(rows) if rows else Text("No time losses or faults."))
    verdict = sprt_verdict(standings, config)
    if verdict:
        decision = standings.sprt.decision if standings.sprt is not None else None
        parts.append(Text(verdict, style={"H1": "bold green", "H0": "bold red"}.get(decision or "", "bold")))
    return Group(*parts)


# Markdown.


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    out = ["| " + " | ".join(cell(h) for h in headers) + " |",
           "|" + "|".join("---:" if r else ":---" for r in right) + "|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def _config_lines(config: dict[str, Any]) -> list[str]:
    lines = []
    names = [str(e.get("name", "?")) for e in config.get("engines", []) if isinstance(e, dict)]
    for label, value in [
        ("Format", config.get("format")),
        ("Engines", ", ".join(names) if names else None),
        ("Time control", config.get("time_control")),
        ("Concurrency", config.get("concurrency")),
    ]:
        if value not in (None, ""):
            lines.append(f"- {label}: {value}")
    test = config.get("sprt")
    if isinstance(test, dict):
        fields = ", ".join(f"{k}={test[k]}" for k in ("elo0", "elo1", "alpha", "beta", "model") if k in test)
        lines.append(f"- SPRT: {fields}")
    return lines


def render_markdown(standings: Standings, config: dict[str, Any], *, title: str) -> str:
    """The final report as Markdown (what goes in ``report.md``)."""
    out = [f"# {title}", ""]
    out += _config_lines(config)
    out += [f"- Games: {summary_line(standings)}"]
    fma = first_move_line(standings)
    if fma:
        out.append(f"- {fma}")
    out += ["", "## Rating list", ""]
    out += _md_table(
        ["Rank", "Name", "Elo", "±", "nElo", "Games", "Points", "Score", "W/D/L", "Draw", "Ptnml(0-2)"],
        [[str(rank), s.name, _num(s.elo), _num(s.margin, ".1f"), format_nelo(s.nelo), str(s.games),
          f"{s.points:g}", f"{100 * s.score:.1f}%", f"{s.wins}/{s.draws}/{s.losses}",
          f"{100 * s.draw_ratio:.1f}%", format_ptnml(s.pentanomial)]
         for rank, s in enumerate(standings.engines, 1)],
        [True, False, True, True, True, True, True, True, True, True, True],
    )
    out += ["", "Elo ± is the 95% interval: " + (
        "from the pentanomial pair counts of the match (the second engine mirrored)."
        if len(standings.engines) == 2 else
        "from a joint Bradley-Terry fit of all games with a first-move term (bootstrap)."), ""]
    if standings.pairings:
        out += ["## Pairings", ""]
        rows = []
        for p in standings.pairings:
            est = p.estimate
            rows.append([
                p.first, p.second, str(p.games), f"{p.wins}/{p.draws}/{p.losses}",
                f"{100 * p.points / p.games:.1f}%" if p.games else "-",
                f"{est.elo:+.1f} ± {est.margin:.1f}" if est else "-",
                f"{format_nelo(est.nelo)} ± {est.nelo_margin:.1f}" if est else "-",
                f"{100 * est.los:.1f}%" if est else "-",
                f"{100 * p.draws / p.games:.1f}%" if p.games else "-",
                format_ptnml(p.pentanomial),
            ])
        out += _md_table(["First", "Second", "Games", "W/D/L", "Score", "Elo ±", "nElo ±", "LOS", "Draw",
                          "Ptnml(0-2)"], rows, [False, False] + [True] * 8)
        out += ["", "```"]
        for p in standings.pairings:
            out += pairing_lines(p)
        out += ["```", ""]
    if standings.endings:
        out += ["## Endings", ""]
        out += _md_table(["Ending", "Games", "Share"],
                         [[Termination(e).label, str(c), f"{100 * c / max(standings.games_done, 1):.1f}%"]
                          for e, c in standings.endings.items()], [False, True, True])
        out.append("")
    out += ["## Time losses and faults", ""]
    rows_f = fault_rows(standings)
    if rows_f:
        out += _md_table(["Engine", "Time losses", "Crashes", "Stalls", "Illegal moves", "Protocol errors"],
                         [[s.name, str(s.time_forfeits), str(s.crashes), str(s.stalls), str(s.illegal_moves),
                           str(s.protocol_errors)] for s in rows_f], [False] + [True] * 5)
    else:
        out.append("None.")
    out.append("")
    verdict = sprt_verdict(standings, config)
    if verdict:
        out += ["## SPRT", "", verdict, ""]
    return "\n".join(out)
