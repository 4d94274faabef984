/* samuel_terms.c -- Samuel's 1959 parameters (Appendix C) and his polynomial.  (Being written.) */
#include "bitboard.h"

int ckr_samuel_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    (void)eval;
    (void)pos;
    (void)parent;
    return 0;
}
