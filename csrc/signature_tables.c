/* signature_tables.c -- Samuel's 1967 signature-table hierarchy
 * (CKR_EVAL_SIGNATURE; trainer and the choice of terms, quantization and
 * grouping: engine/learners/signature_tables.py).
 *
 * 27 inputs, each one of Samuel's terms (ckr_samuel_terms) seen by the player
 * who made the last move (v = -term), quantized to 7, 5 or 3 levels; 9
 * first-level tables of 7 * 5 * 3 = 105 entries (inputs 3j, 3j+1, 3j+2 of
 * 7, 5, 3 levels); their entries quantized to Q1 = 5 levels feed 3
 * second-level tables of 125 entries (first-level tables 3g, 3g+1, 3g+2);
 * their entries quantized to Q3 levels index the third-level table of Q3^3
 * entries.  Entries are (A - D) / (A + D) coefficients (shrunk) in 1/10000,
 * rating the position for the player who just moved.
 *
 * Quantizing an input with L = 2m + 1 levels and thresholds t1, t2:
 *   step = 0 if v == 0, else 1 + (|v| > t1 if m >= 2) + (|v| > t2 if m >= 3);
 *   level = m + sign(v) * step.
 * Quantizing a table entry x with thresholds th[0..n-1]: level = #{th < x}.
 *
 * Data layout (int32, eval->data), version 2:
 *   [0] SIG_VERSION (2)  [1] inputs (27)  [2] first-level tables (9)
 *   [3] second-level tables (3)  [4] Q1 (5)  [5] Q3  [6] tiebreak (0/1)
 *   [7] tiebreak shift
 *   [8] material weight W (0 = no material term)
 *   [9] table shift S (0..30): the table part is divided by 2^S (floor)
 *   [10] number of game phases P, then P - 1 piece-count bounds, descending:
 *       a position's phase is the number of bounds >= its pieces on the board
 *       (both sides, men and kings); then P blocks, one per phase, each:
 *   27 x {term index, levels, t1, t2}
 *   then 9 x 4 first-level output thresholds, 9 x 105 first-level entries
 *   then 3 x (Q3 - 1) second-level output thresholds, 3 x 125 entries
 *   then Q3^3 third-level entries, index (l0 * Q3 + l1) * Q3 + l2.
 *
 * Version 1 (the same without words 8 and 9; the phase count is at [8]) is
 * still read, as W = 0 and S = 0.
 *
 * Table value x: the third-level entry, and with the tiebreak flag also
 * floor((sum of the 9 first- and 3 second-level entries) / 2^shift), so that
 * positions sharing a third-level entry are still ordered.  x rates the
 * position for the player who just moved.
 *
 * Score for the side to move:
 *   W * bb_material_score(pos) - floor(x / 2^S), clipped to the win bound.
 * The material part is Samuel's piece advantage (kings 3 : men 2, one man is
 * at least 100), kept fixed and outside the learned tables as in Samuel's own
 * programs; without it a search happily follows lines that lose pieces (the
 * tables rate how book-like the last move was, not the material).  The
 * trainer picks S so that the table part's whole range is worth less than
 * one man (100 * W).
 *
 * Fallbacks: parent NULL -- ckr_samuel_terms' stand-in (the same board with
 * the other side to move); data missing, too short or of another shape --
 * score 0.
 */
#include "bitboard.h"

#define SIG_VERSION 2
#define SIG_INPUTS 27
#define SIG_N1 9
#define SIG_N2 3
#define SIG_Q1 5
#define SIG_L1 105
#define SIG_L2 125
#define SIG_HEADER_V1 8
#define SIG_HEADER 10

static int quantize_input(int32_t v, int levels, int32_t t1, int32_t t2)
{
    int m = (levels - 1) / 2;
    int32_t a = v < 0 ? -v : v;
    int step = a == 0 ? 0 : 1;
    if (a && m >= 2 && a > t1)
        step++;
    if (a && m >= 3 && a > t2)
        step++;
    return m + (v < 0 ? -step : step);
}

/* floor(x / 2^k), as the trainer's numpy >> */
static int64_t floor_shift(int64_t x, int k)
{
    int64_t div = (int64_t)1 << k;
    return x >= 0 ? x / div : -((-x + div - 1) / div);
}

static int quantize_output(int32_t x, const int32_t *th, int n)
{
    int level = 0;
    for (int i = 0; i < n; i++)
        level += th[i] < x;
    return level;
}

int ckr_signature_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    const int32_t *d = eval->data;
    if (!d || eval->ndata < SIG_HEADER_V1 + 1 || (d[0] != 1 && d[0] != SIG_VERSION) || d[1] != SIG_INPUTS
        || d[2] != SIG_N1 || d[3] != SIG_N2 || d[4] != SIG_Q1 || d[5] < 2 || d[5] > 64 || d[7] < 0 || d[7] > 30)
        return 0;
    int header = d[0] == 1 ? SIG_HEADER_V1 : SIG_HEADER;
    if (eval->ndata < header + 1)
        return 0;
    int32_t weight = header == SIG_HEADER ? d[8] : 0, shift = header == SIG_HEADER ? d[9] : 0;
    if (shift < 0 || shift > 30 || weight < 0)
        return 0;
    int q3 = d[5];
    int nph = d[header];
    int64_t block = 4 * SIG_INPUTS + SIG_N1 * (SIG_Q1 - 1) + SIG_N1 * SIG_L1 + SIG_N2 * (q3 - 1)
                    + SIG_N2 * SIG_L2 + (int64_t)q3 * q3 * q3;
    if (nph < 1 || nph > 32 || eval->ndata < header + nph + nph * block)
        return 0;
    int npieces = bb_popcount(pos->pieces[0] | pos->pieces[1]);
    int phase = 0;
    for (int i = 0; i < nph - 1; i++)
        phase += npieces <= d[header + 1 + i];
    const int32_t *slots = d + header + nph + phase * block;
    const int32_t *th1 = slots + 4 * SIG_INPUTS;
    const int32_t *t1 = th1 + SIG_N1 * (SIG_Q1 - 1);
    const int32_t *th2 = t1 + SIG_N1 * SIG_L1;
    const int32_t *t2 = th2 + SIG_N2 * (q3 - 1);
    const int32_t *t3 = t2 + SIG_N2 * SIG_L2;

    int32_t t[CKR_SAMUEL_NTERMS];
    ckr_samuel_terms(pos, parent, t);
    int q[SIG_INPUTS];
    for (int s = 0; s < SIG_INPUTS; s++) {
        const int32_t *sl = slots + 4 * s;
        int32_t v = (sl[0] >= 0 && sl[0] < CKR_SAMUEL_NTERMS) ? -t[sl[0]] : 0;
        int levels = sl[1] == 7 || sl[1] == 5 || sl[1] == 3 ? sl[1] : 3;
        q[s] = quantize_input(v, levels, sl[2], sl[3]);
    }
    int64_t lower = 0;
    int lev1[SIG_N1];
    for (int j = 0; j < SIG_N1; j++) {
        int idx = (q[3 * j] * 5 + q[3 * j + 1]) * 3 + q[3 * j + 2];
        int32_t out = t1[SIG_L1 * j + idx];
        lower += out;
        lev1[j] = quantize_output(out, th1 + (SIG_Q1 - 1) * j, SIG_Q1 - 1);
    }
    int lev2[SIG_N2];
    for (int g = 0; g < SIG_N2; g++) {
        int idx = (lev1[3 * g] * SIG_Q1 + lev1[3 * g + 1]) * SIG_Q1 + lev1[3 * g + 2];
        int32_t out = t2[SIG_L2 * g + idx];
        lower += out;
        lev2[g] = quantize_output(out, th2 + (q3 - 1) * g, q3 - 1);
    }
    int64_t x = t3[(lev2[0] * q3 + lev2[1]) * q3 + lev2[2]];
    if (d[6])
        x += floor_shift(lower, d[7]);
    int64_t score = (int64_t)weight * bb_material_score(pos) - floor_shift(x, shift);
    if (score > CKR_WIN_BOUND - 1)
        score = CKR_WIN_BOUND - 1;
    if (score < -CKR_WIN_BOUND + 1)
        score = -CKR_WIN_BOUND + 1;
    return (int)score;
}
