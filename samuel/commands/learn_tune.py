"""samuel learn tune: Texel tuning of the linear evaluation from games with results.

    samuel learn tune --pdn ../shared/data/OCA_2.0.pdn [--selfplay out/selfplay.pdn] --out out/tuned.json
                      [--png out/tune.png] [--games N] [--iterations N] [--start default-2026-11]

Quiet positions of every game (training: game number not a multiple of 10; the
others are held out to fit the sigmoid's scale and to stop at the held-out
minimum), regressed on the games' results (engine/learners/texel.py).  Each file
(--pdn, --selfplay: games from `samuel learn selfplay`) is its own source with its
own held-out games and its own scale K; each weighs the same in the fit and in
the held-out loss that stops it (--by-positions: each position the same); the
held-out loss of each is reported.  Writes
the tuned weights as a linear evaluator (usable by name after copying it to
engine/data/evaluators/) and the learning curve as a PNG.  The fit takes
seconds once the positions are read (they are cached with --cache-dir), so an
interrupted run is simply run again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.errors import OptionError
from samuel.argtypes import evaluator_type, positive_int
from samuel.commands.agree import progress_bar


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser("tune", help="Texel tuning of the linear evaluation on game results",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pdn", action="append", default=[], metavar="FILE",
                   help="PDN file of games with results (repeat for several)")
    p.add_argument("--selfplay", action="append", default=[], metavar="FILE",
                   help="self-play games from `samuel learn selfplay` (checked as such; repeat for several)")
    p.add_argument("--out", required=True, help="evaluator file to write (.json)")
    p.add_argument("--png", default=None, help="learning curve to draw (default: next to --out)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="read only the first N games of each file")
    p.add_argument("--iterations", type=positive_int, default=200, help="L-BFGS iterations (default 200)")
    p.add_argument("--start", type=evaluator_type, default="default-2026-11",
                   help="linear evaluator whose weights the tuning starts from (default: %(default)s)")
    p.add_argument("--by-positions", action="store_true",
                   help="weigh every position the same (default: every file the same, in the fit and "
                        "in the held-out loss)")
    p.add_argument("--cache-dir", default=None, help="cache the extracted positions as .npz here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix != ".json":
        raise OptionError(f"--out must name a .json file, got {args.out!r}")
    import numpy as np

    from engine import core, evaluators
    from engine.learners import selfplay, texel

    start = evaluators.by_name(args.start)
    if start.spec.kind not in (core.EVAL_LINEAR, core.EVAL_DEFAULT):
        raise OptionError(f"--start {args.start!r} is not a linear evaluator")
    weights = start.spec.weights if start.spec.kind == core.EVAL_LINEAR else tuple(core.default_weights())
    w0 = np.zeros(len(evaluators.FEATURE_NAMES))
    w0[:len(weights)] = np.asarray(weights, dtype=np.float64) / core.WEIGHT_ONE
    sources = [(pdn, False) for pdn in args.pdn] + [(pdn, True) for pdn in args.selfplay]
    if not sources:
        raise OptionError("give games to tune on: --pdn FILE and/or --selfplay FILE")
    for pdn, is_selfplay in sources:
        if not Path(pdn).is_file():
            raise OptionError(f"no such {'self-play' if is_selfplay else 'PDN'} file: {pdn}")
        if is_selfplay:
            selfplay.read_existing(pdn)  # a clear error for a file that is not self-play games
    names = [Path(pdn).name for pdn, _ in sources]
    if len(set(names)) < len(names):
        names = [pdn for pdn, _ in sources]
    with progress_bar() as task:
        parts = []
        for pdn, _ in sources:
            s = texel.load(pdn, limit_games=args.games, cache_dir=args.cache_dir,
                           progress=task(f"reading {Path(pdn).name}"))
            if not len(s):
                raise OptionError(f"{pdn}: no quiet positions of games with results")
            parts.append(s)
        samples = texel.Samples.concat(parts)
        held = (samples.game % 10) == 0
        try:
            result = texel.tune(samples.select(~held), samples.select(held), w0, iterations=args.iterations,
                                progress=task("tuning"), source_names=names,
                                balance=not args.by_positions)
        except ValueError as exc:
            raise OptionError(str(exc)) from exc
    ev = texel.evaluator(result, name=out.stem, source=", ".join(pdn for pdn, _ in sources))
    out.parent.mkdir(parents=True, exist_ok=True)
    evaluators.save(ev, out)
    png = Path(args.png) if args.png else out.with_suffix(".png")
    texel.plot(result, png)
    print(f"tuned on {result.train_samples} quiet positions, held out {result.held_out_samples}; "
          f"K {', '.join(f'{k:.4f}' for k in result.scales)}; held-out loss {result.start_loss[1]:.5f} -> "
          f"{min(c[2] for c in result.curve):.5f} (iteration {result.best_iteration})")
    for i, name in enumerate(result.source_names):
        print(f"  {name}: K {result.scales[i]:.4f}, {result.held_out_counts[i]} held out, held-out loss "
              f"{result.held_out_by_source[0][i]:.5f} -> {result.best_held_out[i]:.5f}")
    for name, a, b in zip(evaluators.FEATURE_NAMES, w0, result.weights, strict=False):
        print(f"  {name:<14} {a:8.2f} -> {b:8.2f}")
    print(f"wrote {out} (evaluator {out.stem!r}) and {png}")
    return 0
