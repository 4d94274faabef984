"""samuel learn generalize: Samuel's learning by generalization (Alpha against Beta, second series).

    samuel learn generalize --games 60 --seed 1 --depth 4 --out out/generalize

``--games`` is the total the run should reach: with an existing state file the run resumes from it
and plays only the games still missing.  After every game the state (both polynomials, correlations,
tallies, black marks, reserve list, game count, RNG state) is written atomically, and so is Alpha's
polynomial as an evaluator file (``--eval OUT/samuel-alpha.json`` anywhere).  At the end a PNG like
Samuel's Figure 4 shows the coefficients against games played.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from engine import evaluators
from engine.errors import OptionError
from engine.learners.generalize import (
    FIRST_SERIES_GAMES,
    GAME_PLIES,
    INITIAL_TERMS,
    LearningGame,
    MoveLearning,
    SelfPlay,
    SelfPlayConfig,
    leading_changes,
)
from engine.learners.generalize_state import (
    ADOPTIONS,
    CORRECTION_WEIGHTS,
    EXPONENT_RULES,
    NEW_TERM_INTERVAL,
    TALLY_LIMIT,
    TALLY_RESETS,
    TIMES_USED,
    coefficient,
)
from samuel.outputs import check_output_dir, output_dir, output_file_in_new_folders, replacing, save_figure
from samuel.progress import progress as make_progress

DEFAULT_OUT = Path("out") / "generalize"


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser(
        "generalize",
        help="Samuel's 1959 learning by generalization: Alpha/Beta self-play",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument("--games", type=int, required=True, metavar="N",
                   help="total games the run should reach (a resumed run plays the rest)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the run (default 0; a state keeps its own)")
    p.add_argument("--depth", type=int, default=None,
                   help="minimum ply of Samuel's search for both players (default 4)")
    p.add_argument("--initial-terms", choices=INITIAL_TERMS, default=None,
                   help="first 16 terms: from Appendix C's survivors (default); a seeded arbitrary pick "
                        f"(first series); first-series: play our own {FIRST_SERIES_GAMES}-game first "
                        "series first and start from its terms at equal weights, as Samuel did; "
                        "first-series-weights: the same, keeping its correlations")
    p.add_argument("--game-plies", type=int, default=None,
                   help=f"stop and judge a game after this many moves (default {GAME_PLIES})")
    rules = p.add_argument_group("readings that are ours (issue 15; a state keeps its own)")
    rules.add_argument("--tally-limit", type=int, default=None, metavar="T",
                       help=f"a term is due for replacement at this low-term tally (default {TALLY_LIMIT})")
    rules.add_argument("--new-term-every", type=int, default=None, metavar="M",
                       help=f"at most one new term per M Alpha moves (default {NEW_TERM_INTERVAL}); 0: no "
                            "separate clock, replace as soon as a tally reaches the limit")
    rules.add_argument("--tally-reset", choices=TALLY_RESETS, default=None,
                       help="never (default): tallies count until their term goes; replacement: all "
                            "tallies restart whenever a term is replaced")
    rules.add_argument("--exponent-rule", choices=EXPONENT_RULES, default=None,
                       help="round (default): power round(18 C/Cmax), Appendix C's table; ratio: the "
                            "text, 2^n below the leader when Cmax/C is in [n, n+1)")
    rules.add_argument("--min-delta-scale", type=float, default=None, metavar="F",
                       help="minimum delta = F times the average coefficient (default 1)")
    rules.add_argument("--padv-scale", type=float, default=None, metavar="F",
                       help="piece advantage's fixed coefficient times F (default 1: a man is worth "
                            "100 centi-men, one unit of a 2^18 term 32)")
    rules.add_argument("--times-used", choices=TIMES_USED, default=None,
                       help="N of the correlation update counts corrections (default) or the moves at "
                            "which the term was nonzero")
    rules.add_argument("--correction-weights", choices=CORRECTION_WEIGHTS, default=None,
                       help="samuel (default): doubled on a change in piece ratio, quadrupled for an "
                            "almost sure outcome; flat: every correction counts once")
    rules.add_argument("--adoption", choices=ADOPTIONS, default=None,
                       help="when Beta takes Alpha's polynomial: majority (default, second series), "
                            "win (first series), never (Samuel's immobilized adoption)")
    rules.add_argument("--series", type=int, choices=(1, 2), default=None,
                       help="2 (default): the second series' procedure; 1: the first series' (all "
                            "contributing terms on delta > 0, a span of one move, no initial search)")
    p.add_argument("--backend", choices=("modern", "704"), default="modern",
                   help="modern (default): search and learn on the host; 704: both players search on "
                        "the emulated IBM 704 and Alpha's bookkeeping is the 704 program's; prints "
                        "the 704 time the run would have taken")
    p.add_argument("--state", type=output_file_in_new_folders, default=None,
                   help="state file (default OUT/state.json)")
    p.add_argument("--out", type=output_dir, default=DEFAULT_OUT,
                   help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--name", default="samuel-alpha",
                   help="name of the evaluator written (default samuel-alpha)")
    p.set_defaults(func=run)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write then rename, so a crash leaves the previous complete file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def load_state(path: Path) -> SelfPlay:
    try:
        return SelfPlay.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OptionError(f"{path}: not a generalization state file ({exc})") from None


def save_outputs(run: SelfPlay, state_path: Path, eval_path: Path, name: str) -> None:
    write_json_atomic(state_path, run.to_dict())
    evaluators.save(run.alpha_evaluator(name), eval_path)


def leading_table(run: SelfPlay, count: int = 12) -> list[str]:
    """Appendix C's table for the current polynomial: term, correlation, sign, power of 2, uses."""
    active = sorted(run.alpha.active, key=lambda t: -abs(t.correlation))
    c_max = max((abs(t.correlation) for t in active), default=0.0)
    rule = run.alpha.rules.exponent_rule
    lines = [f"{'term':<7} {'corr':>6} {'sign':>4} {'power':>5} {'adjusted':>8}"]
    for t in active[:count]:
        power = str(abs(coefficient(t.correlation, c_max, rule)).bit_length() - 1) if t.correlation else "-"
        lines.append(f"{t.name:<7} {abs(t.correlation):6.3f} {t.sign:>4} {power:>5} {t.uses:>8}")
    return lines


def plot_figure4(run: SelfPlay, path: Path, top: int = 8, most: int = 12) -> None:
    """Coefficients (signed power of two) of the more significant terms against games played.

    The terms drawn: the ``top`` by final correlation, then those that led the polynomial after at
    least five games (up to ``most`` lines, so the figure stays readable).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    snapshots: list[dict[str, int]] = [run.initial] + [g.coefficients for g in run.history]

    def signed_power(c: int) -> float:
        return 0.0 if c == 0 else (1 if c > 0 else -1) * (abs(c).bit_length() - 1)

    final = run.alpha.correlations()
    chosen = sorted(final, key=lambda n: -abs(final[n]))[:top]
    led: dict[str, int] = {}
    for snap in snapshots[1:]:
        if snap:
            lead = max(snap, key=lambda n: abs(snap[n]))
            led[lead] = led.get(lead, 0) + 1
    for name, count in sorted(led.items(), key=lambda kv: -kv[1]):
        if count >= 5 and name not in chosen and len(chosen) < most:
            chosen.append(name)
    fig, ax = plt.subplots(figsize=(11, 6.5))
    games = list(range(len(snapshots)))
    for name in chosen:
        ys = [signed_power(s[name]) if name in s else float("nan") for s in snapshots]
        ax.plot(games, ys, marker=".", linewidth=1.2, label=name)
    for g in run.history:
        if g.adopted:
            ax.axvline(g.game, color="0.8", linewidth=0.8, zorder=0)
        if g.penalized:
            ax.axvline(g.game, color="red", linestyle=":", linewidth=0.8, zorder=0)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("games played")
    ax.set_ylabel("coefficient: sign × power of 2 (0 = out or zero)")
    ax.set_ylim(-19, 19)
    cfg = run.config
    ax.set_title(f"Learning by generalization (cf. Samuel 1959, Fig. 4): seed {cfg.seed}, "
                 f"minimum ply {cfg.depth}, {run.games} games\n"
                 "grey lines: Beta adopts Alpha's polynomial; "
                 "red dotted: leading term zeroed (3 black marks)",
                 fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def _tally(history: list[LearningGame]) -> str:
    w = sum(1 for g in history if g.result > 0)
    lo = sum(1 for g in history if g.result < 0)
    return f"Alpha +{w} ={len(history) - w - lo} -{lo}"


def _rule_args(args: argparse.Namespace) -> dict[str, Any]:
    """The rule options as ``SelfPlayConfig`` fields (None: not given)."""
    return {"tally_limit": args.tally_limit, "new_term_interval": args.new_term_every,
            "tally_reset": args.tally_reset, "exponent_rule": args.exponent_rule,
            "min_delta_scale": args.min_delta_scale, "padv_scale": args.padv_scale,
            "times_used": args.times_used, "correction_weights": args.correction_weights,
            "adoption": args.adoption, "series": args.series}


def run(args: argparse.Namespace) -> int:
    # rich here, not at the top: building the parser should not load it.
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    out: Path = check_output_dir(args.out, "--out")
    state_path = Path(args.state) if args.state else out / "state.json"
    eval_path = out / f"{args.name}.json"
    figure_path = out / "figure4.png"
    if args.games < 1:
        raise OptionError(f"--games: {args.games} is out of range (1 or more)")

    if state_path.exists():
        sp = load_state(state_path)
        given = {"seed": args.seed, "depth": args.depth, "initial_terms": args.initial_terms,
                 "game_plies": args.game_plies, **_rule_args(args)}
        kept = sp.config.to_dict()
        for key, value in given.items():
            if value is not None and value != kept[key]:
                console.print(f"[yellow]{state_path} was started with {key}={kept[key]}; "
                              f"keeping it (ignoring {value})[/]")
        console.print(f"resuming {state_path}: {sp.games} games played")
    else:
        try:
            cfg = SelfPlayConfig(
                depth=args.depth if args.depth is not None else 4,
                seed=args.seed if args.seed is not None else 0,
                initial_terms=args.initial_terms or "samuel",
                game_plies=args.game_plies or GAME_PLIES,
                **{k: v for k, v in _rule_args(args).items() if v is not None},
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        if cfg.depth < 1 or cfg.game_plies < 1:
            raise OptionError("--depth and --game-plies must be at least 1")
        if cfg.initial_terms.startswith("first-series"):
            console.print(f"playing our first series ({FIRST_SERIES_GAMES} games) "
                          "to choose the starting terms")
        sp = SelfPlay.start(cfg)
        if sp.first_series is not None:
            f = sp.first_series
            console.print(f"first series: Alpha +{f['won']} ={f['drawn']} -{f['lost']}, "
                          f"{f['leading_changes']} leading-term changes")
        save_outputs(sp, state_path, eval_path, args.name)

    machine = None
    if args.backend == "704":
        from engine.learners.generalize_704 import Machine704
        from engine.program704 import Program704Error

        try:
            machine = Machine704()
            sp.use_704(machine)
        except Program704Error as exc:
            raise OptionError(f"--backend 704: {exc}") from None
    todo = max(0, args.games - sp.games)
    started = time.perf_counter()
    with make_progress(
        TextColumn("[bold]generalize"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[ply]}"), TextColumn("{task.fields[tally]}"),
        TextColumn("{task.fields[lead]}"),
        console=console,
    ) as progress:
        task = progress.add_task("games", total=args.games, completed=sp.games, ply="",
                                 tally=_tally(sp.history), lead="")

        def on_ply(ply: int, learned: MoveLearning | None) -> None:
            note = f"move {ply:>2}/{sp.config.game_plies}"
            if learned is not None and learned.delta is not None:
                note += f"  delta {learned.delta:+d}"
            progress.update(task, ply=note)

        for _ in range(todo):
            rec = sp.play_learning_game(on_ply)
            save_outputs(sp, state_path, eval_path, args.name)
            lead = max(rec.coefficients, key=lambda n: abs(rec.coefficients[n]))
            notes = " adopted" if rec.adopted else ""
            notes += f" zeroed {rec.penalized}" if rec.penalized else ""
            progress.update(task, advance=1, tally=_tally(sp.history),
                            lead=f"lead {lead} {'+' if rec.coefficients[lead] > 0 else '-'}{notes}")
    wall = time.perf_counter() - started

    plot_figure4(sp, figure_path)
    h = sp.history
    adoptions = sum(g.adopted for g in h)
    penalties = [g.penalized for g in h if g.penalized]
    print(f"games        {sp.games} ({todo} this run, {wall:.1f} s)")
    print(f"results      {_tally(h)}  (won or ahead when stopped at {sp.config.game_plies} moves)")
    print(f"adoptions    {adoptions} (Beta took Alpha's polynomial)   black-mark penalties {len(penalties)}"
          + (f" ({', '.join(p for p in penalties if p)})" if penalties else ""))
    print(f"corrections  {sp.alpha.corrections} sets of adjustments over {sp.alpha.moves} Alpha moves")
    print(f"leading term changed {leading_changes(h)} times (after a game against the game before)")
    print("polynomial   " + "\n             ".join(leading_table(sp)))
    dropped = ", ".join(f"{d.name} {d.uses}" for d in sp.alpha.discards)
    print(f"discarded    {dropped or 'none'}")
    if machine is not None:
        secs = machine.seconds_704
        print(f"704 time     {secs:,.0f} s ({secs / 3600:.1f} h) this run: {machine.searches} searches "
              f"{machine.search_seconds:,.0f} s, {machine.learner_calls} learner calls "
              f"{machine.learner_cycles:,} cycles")
    print(f"state        {state_path}")
    print(f"evaluator    {eval_path}")
    print(f"figure       {figure_path}")
    sys.stdout.flush()
    return 0
