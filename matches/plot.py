"""The ratings as a picture: each engine's Elo with its 95% interval, and the SPRT's LLR over the games.

Drawn with matplotlib's Agg backend, so it never needs a display.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Sequence
from pathlib import Path

from matches.standings import Standings


def plot_ratings(standings: Standings, path: Path, *, llr: Sequence[tuple[int, float]] | None = None,
                 title: str = "") -> Path:
    """Write a PNG to ``path`` and return it.

    The top panel has one row per rated engine, best at the top, a point at its Elo
    and a bar over its interval.  With ``llr`` a second panel draws the LLR after
    each game and, when the standings hold an SPRT, its two bounds.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rated = [s for s in standings.engines if not math.isnan(s.elo)]
    rated.sort(key=lambda s: s.elo)  # the best ends up at the top of a horizontal plot
    panels = 2 if llr is not None else 1
    height = max(2.2, 0.45 * len(rated) + 1.6)
    fig, axes = plt.subplots(panels, 1, figsize=(8, height + (3.2 if panels == 2 else 0.0)), squeeze=False,
                             gridspec_kw={"height_ratios": [height, 3.2][:panels]})
    try:
        ax = axes[0][0]
        if rated:
            ys = list(range(len(rated)))
            elos = [s.elo for s in rated]
            below = [s.elo - s.low if math.isfinite(s.low) else 0.0 for s in rated]
            above = [s.high - s.elo if math.isfinite(s.high) else 0.0 for s in rated]
            ax.errorbar(elos, ys, xerr=[below, above], fmt="o", color="tab:blue", ecolor="tab:blue",
                        elinewidth=2, capsize=4)
            ax.set_yticks(ys)
            ax.set_yticklabels([f"{s.name} ({s.games} games)" for s in rated])
            ax.set_ylim(-0.6, len(rated) - 0.4)
            for y, s in zip(ys, rated, strict=True):
                label = f"{s.elo:+.0f}" + (f" ± {s.margin:.0f}" if math.isfinite(s.margin) else "")
                ax.annotate(label, (s.elo, y), textcoords="offset points", xytext=(0, 7), ha="center",
                            fontsize=8)
        else:
            ax.text(0.5, 0.5, "no rated games yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_yticks([])
        ax.axvline(0, color="0.6", linewidth=0.8, zorder=0)
        ax.set_xlabel("Elo (95% interval)")
        ax.grid(axis="x", color="0.9")
        done, total = standings.games_done, standings.games_total
        games = f"{done}/{total} games" if total else f"{done} games"
        ax.set_title(f"{title} ({games})" if title else games, fontsize=11)

        if llr is not None:
            ax2 = axes[1][0]
            if llr:
                xs, ys2 = zip(*llr, strict=True)
                ax2.plot(xs, ys2, color="tab:purple", linewidth=1.4, label="LLR")
            st = standings.sprt
            if st is not None:
                for bound, colour, label in ((st.upper, "tab:green", "H1"), (st.lower, "tab:red", "H0")):
                    ax2.axhline(bound, color=colour, linestyle="--", linewidth=1,
                                label=f"{label} {bound:+.2f}")
                if st.decision:
                    ax2.set_title(f"SPRT: {st.decision} accepted", fontsize=10)
            ax2.axhline(0, color="0.6", linewidth=0.8, zorder=0)
            ax2.set_xlabel("games")
            ax2.set_ylabel("LLR")
            ax2.grid(color="0.9")
            if ax2.get_legend_handles_labels()[0]:
                ax2.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.png")
        try:
            fig.savefig(tmp, dpi=110)
            os.replace(tmp, path)
        except BaseException:  # leave no half-drawn file behind
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
    finally:
        plt.close(fig)
    return path
