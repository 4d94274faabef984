/* labels.c -- training labels: positions searched in a batch by the modern
 * search (ckr_search_scores). */
#include "search.h"

/* Training labels: each position searched by the modern search to `depth`
 * (no game history), its score for the side to move into out, clipped to
 * +-2000 centi-men (twenty men: a proven result's score means nothing more
 * to a sigmoid).  The table carries over from one
 * position to the next, as in a game, so the same call repeats its scores. */
int64_t ckr_search_scores(ckr_engine *e, const uint32_t *sets, int64_t n, int depth, int32_t *out)
{
    ckr_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.mode = CKR_MODE_PVS;
    limits.depth = depth;
    ckr_engine_clear(e);
    for (int64_t i = 0; i < n; i++) {
        const uint32_t *s = sets + 5 * i;
        ckr_pos pos;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            return i;
        ckr_info info;
        int score = ckr_search(e, &pos, NULL, 0, &limits, &info) ? info.score : -CKR_WIN;
        const int cap = 2000;
        out[i] = score > cap ? cap : score < -cap ? -cap : score;
    }
    return -1;
}
