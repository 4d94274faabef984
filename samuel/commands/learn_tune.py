"""samuel learn tune: Texel tuning of the linear evaluation, or of a piece-square network, on game results.

    samuel learn tune --pdn ../shared/data/OCA_2.0.pdn [--selfplay out/selfplay.pdn] --out out/tuned.json
                      [--png out/tune.png] [--games N] [--iterations N] [--start default-2026-11]
    samuel learn tune --model net --pdn ../shared/data/OCA_2.0.pdn [--selfplay out/selfplay.pdn]
                      --out out/piece-net.json [--width 64|128|256] [--patterns] [--epochs N] [--teacher F]
                      [--teacher-eval piece-net --teacher-depth 4 [--teacher-executor ray]]
                      [--checkpoint out/piece-net.ckpt.npz]

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

--model net trains the piece-square network of engine/learners/piece_net.py
(docs/piece-net.md) on the same positions (of every file, each position once)
with minibatch Adam, one epoch at a time; the checkpoint (default: next to
--out) is written after every epoch and a run of the same configuration
continues from it.  --width sets the first layer's width (64, 128 or 256; the
search's cost per leaf grows with it, docs/piece-net.md).  --patterns adds the
nine 4x4 region patterns to the first layer's inputs (layout version 4).
--distinct trains on each distinct position once and holds positions out by the
position, so that no held-out position was seen in training (self-play repeats
its positions: nine held-out positions in ten occur in the training games).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import OptionError
from samuel.argtypes import evaluator_type, positive_int
from samuel.commands.agree import progress_bar
from samuel.outputs import check_output_file, output_dir, output_file, output_file_in_new_folders

if TYPE_CHECKING:
    from engine.learners import search_labels


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser("tune", help="Texel tuning of the linear evaluation on game results",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pdn", action="append", default=[], metavar="FILE",
                   help="PDN file of games with results (repeat for several)")
    p.add_argument("--selfplay", action="append", default=[], metavar="FILE",
                   help="self-play games from `samuel learn selfplay` (checked as such; repeat for several)")
    p.add_argument("--out", required=True, type=output_file_in_new_folders,
                   help="evaluator file to write (.json)")
    p.add_argument("--png", default=None, type=output_file,
                   help="learning curve to draw (default: next to --out)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="read only the first N games of each file")
    p.add_argument("--iterations", type=positive_int, default=200, help="L-BFGS iterations (default 200)")
    p.add_argument("--start", type=evaluator_type, default="default-2026-11",
                   help="linear evaluator whose weights the tuning starts from (default: %(default)s)")
    p.add_argument("--by-positions", action="store_true",
                   help="weigh every position the same (default: every file the same, in the fit and "
                        "in the held-out loss)")
    p.add_argument("--cache-dir", default=None, type=output_dir,
                   help="cache the extracted positions as .npz here")
    p.add_argument("--model", choices=("linear", "net"), default="linear",
                   help="what to fit: the linear evaluation's weights (default) or the piece-square network")
    net = p.add_argument_group("--model net")
    net.add_argument("--width", type=int, choices=(64, 128, 256), default=None,
                     help="the first layer's width (default 64)")
    net.add_argument("--distinct", action="store_true",
                     help="train on each distinct position once (its results and teacher scores "
                          "averaged) and hold out one position in ten by the position, not by the game")
    net.add_argument("--patterns", action="store_true",
                     help="add the nine 4x4 region patterns to the first layer's inputs (layout version 4)")
    net.add_argument("--epochs", type=positive_int, default=30, help="most epochs to train (default 30)")
    net.add_argument("--batch", type=positive_int, default=1024, help="minibatch size (default 1024)")
    net.add_argument("--lr", type=float, default=2e-3,
                     help="Adam's learning rate (default 0.002, times 0.9 an epoch)")
    net.add_argument("--teacher", type=float, default=0.0,
                     help="share of the teacher's prediction in the target, 0..1 (default 0); the teacher is "
                          "the linear evaluator, or a search with --teacher-eval")
    net.add_argument("--teacher-eval", type=evaluator_type, default=None,
                     help="label every position with a search by this evaluator as the teacher "
                          "(cached with --cache-dir)")
    net.add_argument("--teacher-depth", type=positive_int, default=4,
                     help="depth of the teacher's search in plies (default 4)")
    net.add_argument("--teacher-executor", choices=("local", "ray"), default="local",
                     help="label here (default) or on a Ray cluster (pip install 'samuel[ray]'; "
                          "docs/teaching.md)")
    net.add_argument("--teacher-workers", type=positive_int, default=None,
                     help="chunks labelled at once (default: the cores, at most 8; on Ray: its CPUs)")
    net.add_argument("--teacher-ray-address", default=None,
                     help="Ray cluster to label on: auto or HOST:PORT (default: start a local one)")
    net.add_argument("--patience", type=positive_int, default=5,
                     help="stop after this many epochs without a lower held-out loss (default 5)")
    net.add_argument("--seed", type=int, default=0, help="initial weights and batch order (default 0)")
    net.add_argument("--checkpoint", default=None, type=output_file_in_new_folders,
                     help="resumable training state (.npz; default: --out with .ckpt.npz)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix != ".json":
        raise OptionError(f"--out must name a .json file, got {args.out!r}")
    if not args.png:  # the curve beside --out: checked now, not after the fit
        check_output_file(out.with_suffix(".png"), "--png", folders=True)
    if args.model == "net":
        return run_net(args, out)
    if args.width is not None:
        raise OptionError("--width sets the piece network's first layer: give it with --model net")
    if args.patterns:
        raise OptionError("--patterns adds region patterns to the piece network's first layer: "
                          "give it with --model net")
    if args.distinct:
        raise OptionError("--distinct is for the piece network's training: give it with --model net")
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


def run_net(args: argparse.Namespace, out: Path) -> int:
    import numpy as np

    from engine import evaluators
    from engine.learners import piece_net, selfplay

    if not 0.0 <= args.teacher <= 1.0:
        raise OptionError(f"--teacher: {args.teacher} is out of range (0..1)")
    if args.teacher_eval is not None and args.teacher == 0:
        raise OptionError("--teacher-eval labels the positions for the teacher: "
                          "give its share with --teacher F")
    checkpoint = Path(args.checkpoint) if args.checkpoint else check_output_file(out.with_suffix(".ckpt.npz"),
                                                                                 "--checkpoint", folders=True)
    files = list(args.pdn) + list(args.selfplay)
    if not files:
        raise OptionError("give games to train on: --pdn FILE and/or --selfplay FILE")
    for pdn in files:
        if not Path(pdn).is_file():
            kind = "self-play" if pdn in args.selfplay and pdn not in args.pdn else "PDN"
            raise OptionError(f"no such {kind} file: {pdn}")
    for pdn in args.selfplay:
        selfplay.read_existing(pdn)  # a clear error for a file that is not self-play games
    with progress_bar() as task:
        parts = []
        for k, pdn in enumerate(files):
            # Every position of a file counts once (unlike the linear fit's equal weight per file):
            # the network has the capacity to use a large self-play set.
            d = piece_net.load(pdn, limit_games=args.games, cache_dir=args.cache_dir,
                               progress=task(f"reading {Path(pdn).name}"))
            d.game = d.game + k * 10_000_000
            parts.append(d)
        data = piece_net.Data.concat(parts)
        if args.distinct:  # before labelling: a position repeated is searched once
            data = piece_net.unique_positions(data)
        teacher_source = "linear"
        if args.teacher_eval is not None:
            from engine.learners import search_labels

            teacher_ev = evaluators.by_name(args.teacher_eval)
            # `default` names the network it plays, so a resumed run never mixes two defaults' labels
            same_as = teacher_ev.meta.get("same_as")
            teacher_name = f"{teacher_ev.name}={same_as}" if same_as else teacher_ev.name
            teacher_source = f"search:{teacher_name}@{args.teacher_depth}"
            data.searched = search_labels.label(
                data.rows, teacher_ev, args.teacher_depth, workers=args.teacher_workers,
                pool=_label_pool(args), cache_dir=args.cache_dir,
                progress=task(f"labelling with {teacher_ev.name} at depth {args.teacher_depth}"))
        held = piece_net.held_out_by_position(data.rows) if args.distinct else (data.game % 10) == 0
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        try:
            result = piece_net.train(data.select(~held), data.select(held), epochs=args.epochs,
                                     batch=args.batch, lr=args.lr, teacher=args.teacher,
                                     teacher_source=teacher_source, patience=args.patience,
                                     seed=args.seed, width=args.width or piece_net.H1,
                                     patterns=args.patterns,
                                     checkpoint=checkpoint,
                                     progress=task("training"))
        except ValueError as exc:
            raise OptionError(str(exc)) from exc
    ev = piece_net.evaluator(result, name=out.stem, source=", ".join(Path(f).name for f in files))
    if args.distinct:  # each position once, held out by the position
        ev = dataclasses.replace(ev, meta={**ev.meta, "distinct_positions": True})
    evaluators.save(ev, out)
    png = Path(args.png) if args.png else out.with_suffix(".png")
    piece_net.plot(result, png)
    held_data = data.select(held)
    c_scores = np.empty(len(held_data), dtype=np.int32)
    from engine import core

    core.piecenet_sets(ev.spec, held_data.rows, c_scores)
    drift = np.abs(c_scores - 100.0 * piece_net.predict(result.params, held_data.rows, result.table))
    best = min(c[2] for c in result.curve)
    print(f"trained on {result.train_samples} quiet positions, held out {result.held_out_samples}; "
          f"K {result.k:.4f}; {len(result.curve) - 1} epochs in {result.seconds:.0f} s "
          f"(best: epoch {result.best_epoch})")
    print(f"held-out loss: network {best:.5f}, default linear evaluation {result.linear_loss[1]:.5f}")
    print(f"int16 network vs float: mean |difference| {drift.mean():.2f}, "
          f"largest {drift.max():.1f} centi-men")
    print(f"wrote {out} (evaluator {out.stem!r}), {png} and the checkpoint {checkpoint}")
    return 0


def _label_pool(args: argparse.Namespace) -> search_labels.PoolOpener | None:
    """Where the teacher's chunks are searched: None for the engine's own threads, or a Ray pool
    (opened only when a chunk is left to search)."""
    if args.teacher_executor != "ray":
        if args.teacher_ray_address is not None:
            raise OptionError("--teacher-ray-address needs --teacher-executor ray")
        return None
    from matches.ray_pool import open_ray_pool

    return lambda: open_ray_pool(args.teacher_ray_address, args.teacher_workers)
