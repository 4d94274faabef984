/* piece_net_fast.h -- the packed piece network's layout, shared by its two
 * halves (internal, not part of the cdef):
 *   piece_net_fast.c  packing, the first layer summed from scratch, and the
 *                     layers after it (the same integers as piece_net.c)
 *   piece_net_acc.c   the accumulator: the first layer kept per ply and
 *                     side, updated from a nearby board's by the rows that
 *                     differ.
 * Every first-layer sum is int16 (wrapping adds and subtracts are exact
 * modulo 2^16, and packing declines a network whose true sums could leave
 * int16, so a sum reached by any sequence of updates is the true one). */
#ifndef CKR_PIECE_NET_FAST_H
#define CKR_PIECE_NET_FAST_H

#include "bitboard.h"

#if defined(__AVX2__)
#include <immintrin.h>
#define CKR_PIECENET_HAVE_FAST 1

#define PN_H2 CKR_PIECENET_H2
#define PN_SLOTS (CKR_MAX_PLY + 2) /* accumulator slots: plies 0..CKR_MAX_PLY + 1 */

typedef struct pn_phase {
    int16_t *w2;                   /* [h1 / 2][H2][2]: [pair of inputs][output][which of the pair] */
    _Alignas(32) int32_t b2[PN_H2];
    _Alignas(32) int32_t w3[PN_H2];
    int32_t b3;
} pn_phase;

/* One ply's first layer seen from one side (the sums as the network reads
 * the board when that side is to move), and the board they belong to
 * (valid: 0 until first filled).  The two points of view of a ply are kept
 * apart: a leaf needs only its mover's, and the other is brought up to date
 * only when some leaf needs it. */
typedef struct pn_slot {
    ckr_bb pieces[2];
    ckr_bb kings;
    int valid;
    int16_t *acc; /* h1 numbers, 32-byte aligned */
    int32_t rows[CKR_PIECENET_PATTERN_WINDOWS]; /* version 4: each region's pattern-table row */
} pn_slot;

struct ckr_piecenet_fast {
    int h1;               /* first-layer width: 64, 128 or 256 */
    int patterns;         /* 1: version 4, W1's rows after the 120 inputs are the region patterns' */
    int16_t *w1;          /* [N_IN (+ CKR_PIECENET_PATTERN_ROWS)][h1] */
    int16_t *b1;          /* [h1] */
    uint8_t phase_of[25]; /* phase by number of pieces */
    pn_phase phase[CKR_PIECENET_MAX_PHASES];
    pn_slot slot[PN_SLOTS][2]; /* [ply][side] */
    void *block;          /* the one allocation the pointers above point into */
};

/* The first-layer sums of position p seen from `side`, from scratch, into acc. */
void pn_first_layer(const ckr_piecenet_fast *f, const ckr_pos *p, int side, int16_t *acc);

/* The score (centi-men, not clamped) from the mover's first-layer sums acc
 * and the number of pieces on the board (which picks the phase). */
int pn_output(const ckr_piecenet_fast *f, const int16_t *acc, int pieces);

#endif
#endif
