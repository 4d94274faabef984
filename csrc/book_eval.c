/* book_eval.c -- dispatch of the evaluators trained from book games.  Each
 * kind lives in its own file with its data layout documented there:
 *   CKR_EVAL_SIGNATURE  signature_tables.c  (Samuel 1967)
 *   CKR_EVAL_TABULATED  tabulated.c         (the refinement paper)
 *   CKR_EVAL_PHASE      phase_tables.c      (Griffith's move-phase tables)
 *   CKR_EVAL_HEURISTIC  heuristic_eval.c    (Griffith's four rules) */
#include "bitboard.h"

int ckr_book_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply)
{
    switch (eval->kind) {
    case CKR_EVAL_SIGNATURE: return ckr_signature_eval(eval, pos, parent);
    case CKR_EVAL_TABULATED: return ckr_tabulated_eval(eval, pos, parent);
    case CKR_EVAL_PHASE: return ckr_phase_eval(eval, pos, parent, game_ply);
    case CKR_EVAL_HEURISTIC: return ckr_heuristic_eval(eval, pos, parent);
    default: return 0;
    }
}
