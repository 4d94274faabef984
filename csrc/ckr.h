/* ckr.h -- include this from C; it wraps the cdef-clean public API headers. */
#ifndef CKR_H
#define CKR_H
#include <stdint.h>
#include "ckr_api.h"
#include "ckr_terms.h"
#include "ckr_book.h"
#include "ckr_rote.h"
#include "ckr_network.h"
#include "ckr_egdb.h"
#include "ckr_piecenet.h"
/* Internal, not part of the cdef: builds evaluate.c's tables; ckr_init calls
 * it once. */
void ckr_evaluate_init(void);
/* Builds network_eval.c's square tables (ckr_init calls it once). */
void ckr_network_init(void);
/* Builds piece_net.c's input tables (ckr_init calls it once). */
void ckr_piecenet_init(void);
/* [mover][class][bit] -> the network's input index, -1 where that piece cannot
 * stand (classes: own men, opponent's men, own kings, opponent's kings). */
extern short ckr_piecenet_input_of[2][4][64];
/* Region patterns (layout version 4): [mover][region][i] -> the bit of the
 * region's i-th relative square. */
extern int8_t ckr_piecenet_region_bit[2][CKR_PIECENET_PATTERN_WINDOWS][8];
/* [mover][bit][k] for k < ckr_piecenet_nterms[mover][bit]: a region holding
 * that bit's square and the square's weight 3^i in the region's pattern. */
typedef struct ckr_region_term {
    int8_t region;
    int16_t weight;
} ckr_region_term;
extern ckr_region_term ckr_piecenet_terms[2][64][4];
extern uint8_t ckr_piecenet_nterms[2][64];
/* The pattern table's row (region * 6561 + pattern) of region w, seen by
 * `mover` whose pieces are `own` and whose opponent's are `opp`. */
static inline int ckr_piecenet_pattern_row(uint64_t own, uint64_t opp, int mover, int w)
{
    const int8_t *bit = ckr_piecenet_region_bit[mover][w];
    int idx = 0;
    for (int i = 7; i >= 0; i--)
        idx = 3 * idx + (int)((own >> bit[i]) & 1) + 2 * (int)((opp >> bit[i]) & 1);
    return w * 6561 + idx;
}
/* The network packed for the search (piece_net_fast.c): NULL when this build
 * or this network cannot take the packed path (the reference is used then). */
typedef struct ckr_piecenet_fast ckr_piecenet_fast;
ckr_piecenet_fast *ckr_piecenet_fast_new(const ckr_eval *eval);
void ckr_piecenet_fast_free(ckr_piecenet_fast *f);
int ckr_piecenet_fast_value(const ckr_piecenet_fast *f, const ckr_pos *p);
/* The same score through f's accumulator slots (piece_net_acc.c); p is a
 * board at `ply` of the search (which picks the slots to start from). */
int ckr_piecenet_acc_value(ckr_piecenet_fast *f, const ckr_pos *p, int ply);
#endif
