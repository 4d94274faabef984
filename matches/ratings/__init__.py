"""Rating statistics: two-player match estimates, sequential tests and multi-engine rating lists.

Pure mathematics: no printing, no protocol.

- ``elo``: score, Elo with its 95% interval, LOS and normalized Elo from trinomial or pentanomial counts;
- ``sprt``: the logistic and normalized GSPRT, cutechess's BayesElo SPRT, Wald's bounds and a status;
- ``bradley_terry``: a joint Elo fit over many engines with a first-move term and bootstrap intervals.
"""

from matches.ratings.bradley_terry import GameResult, Rating, RatingList, fit, rating_list
from matches.ratings.elo import (
    NELO,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    Z95,
    EloEstimate,
    RatingsError,
    cutechess_los,
    cutechess_margin,
    elo_from_score,
    pentanomial,
    score_from_elo,
    trinomial,
)
from matches.ratings.sprt import (
    SprtConfig,
    SprtStatus,
    llr_bayeselo,
    llr_logistic,
    llr_normalized,
    sprt_status,
)

__all__ = [
    "NELO",
    "PENTANOMIAL_SCORES",
    "TRINOMIAL_SCORES",
    "Z95",
    "EloEstimate",
    "GameResult",
    "Rating",
    "RatingList",
    "RatingsError",
    "SprtConfig",
    "SprtStatus",
    "cutechess_los",
    "cutechess_margin",
    "elo_from_score",
    "fit",
    "llr_bayeselo",
    "llr_logistic",
    "llr_normalized",
    "pentanomial",
    "rating_list",
    "score_from_elo",
    "sprt_status",
    "trinomial",
]
