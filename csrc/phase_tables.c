/* phase_tables.c -- (being written) */
#include "bitboard.h"

int ckr_phase_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply)
{
    (void)eval;
    (void)pos;
    (void)parent;
    (void)game_ply;
    return 0;
}
