/* tabulated.c -- (being written) */
#include "bitboard.h"

int ckr_tabulated_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    (void)eval;
    (void)pos;
    (void)parent;
    return 0;
}
