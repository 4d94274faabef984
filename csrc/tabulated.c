/* tabulated.c -- the refinement paper's tabulated scoring function
 * (CKR_EVAL_TABULATED; trainer: engine/learners/tabulated.py).
 *
 * Eight functions of five three-valued arguments each.  An argument is one of
 * Samuel's terms (ckr_samuel_terms) seen by the player who made the last move
 * (v = -term: Samuel's own difference convention) reduced to 0 (v < 0),
 * 1 (v == 0) or 2 (v > 0).  The five arguments, read as a base-3 number with
 * the first as the most significant digit, locate the entry (the paper's
 * example: 1,0,1,0,2 -> 92).  An entry is the trainer's smoothed
 * strong / not-strong quotient in 1/1000, rating the position for the player
 * who just moved; x = the sum of the 8 entries.
 *
 * Score for the side to move:
 *   W * bb_material_score(pos) - floor(x / 2^S), clipped to the win bound.
 * The material part is Samuel's piece advantage (kings 3 : men 2, one man is
 * at least 100), fixed and outside the learned tables as in Samuel's own
 * programs: the tables rate how book-like the last move was, and without
 * material a search follows lines that lose pieces.  The trainer picks S so
 * that the tables' whole range is worth less than one man (100 * W).
 *
 * Data layout (int32, eval->data):
 *   data[0]  TAB_VERSION (1)
 *   data[1]  number of tables (8)     data[2]  arguments per table (5)
 *   data[3]  material weight W (0 = no material term)
 *   data[4]  table shift S (0..30)
 *   data[5..7] reserved (0)
 *   (Data written before words 3 and 4 were used hold 0 there: table only.)
 *   data[8 + 5 * t + a]      term index (0..38, ckr_terms.h order) of
 *                            argument a of table t
 *   data[48 + 243 * t + i]   entry i of table t
 *
 * Fallbacks: parent NULL -- the terms use ckr_samuel_terms' own stand-in
 * (the same board with the other side to move); data missing, too short or
 * with another shape -- score 0.
 */
#include "bitboard.h"

#define TAB_VERSION 1
#define TAB_TABLES 8
#define TAB_ARGS 5
#define TAB_ENTRIES 243
#define TAB_HEADER 8
#define TAB_SIZE (TAB_HEADER + TAB_TABLES * TAB_ARGS + TAB_TABLES * TAB_ENTRIES)

int ckr_tabulated_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    const int32_t *d = eval->data;
    if (!d || eval->ndata < TAB_SIZE || d[0] != TAB_VERSION || d[1] != TAB_TABLES || d[2] != TAB_ARGS
        || d[3] < 0 || d[4] < 0 || d[4] > 30)
        return 0;
    int32_t t[CKR_SAMUEL_NTERMS];
    ckr_samuel_terms(pos, parent, t);
    const int32_t *args = d + TAB_HEADER;
    const int32_t *tables = args + TAB_TABLES * TAB_ARGS;
    int64_t sum = 0;
    for (int k = 0; k < TAB_TABLES; k++) {
        int idx = 0;
        for (int a = 0; a < TAB_ARGS; a++) {
            int32_t term = args[TAB_ARGS * k + a];
            int32_t v = (term >= 0 && term < CKR_SAMUEL_NTERMS) ? -t[term] : 0;
            idx = idx * 3 + (v < 0 ? 0 : v == 0 ? 1 : 2);
        }
        sum += tables[TAB_ENTRIES * k + idx];
    }
    int64_t div = (int64_t)1 << d[4];
    int64_t part = sum >= 0 ? sum / div : -((-sum + div - 1) / div); /* floor, as numpy >> */
    int64_t score = (int64_t)d[3] * bb_material_score(pos) - part;
    if (score > CKR_WIN_BOUND - 1)
        score = CKR_WIN_BOUND - 1;
    if (score < -CKR_WIN_BOUND + 1)
        score = -CKR_WIN_BOUND + 1;
    return (int)score;
}
