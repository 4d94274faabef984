/* piece_net.c -- the piece-square network (CKR_EVAL_PIECENET, ckr_piecenet.h).
 *
 * The reference evaluator: the first layer summed from scratch in int32 at
 * every call, for any width; the search takes the packed int16 path with its
 * accumulator (piece_net_fast.c, piece_net_acc.c), which must give these same
 * integers.  Zero first-layer outputs (most of them, after the clip) skip
 * their row of W2. */
#include "bitboard.h"

#define N_IN CKR_PIECENET_INPUTS
#define H1_MAX CKR_PIECENET_H1_MAX
#define H2 CKR_PIECENET_H2
#define HEAD CKR_PIECENET_HEADER
#define ONE CKR_PIECENET_ONE

/* The numbers of one phase's layers, and of the shared first layer. */
static inline int phase_size(int h1) { return h1 * H2 + H2 + H2 + 1; }
static inline int shared_size(int h1) { return N_IN * h1 + h1; }
static inline int width_ok(int h1) { return h1 == 64 || h1 == 128 || h1 == 256; }
/* Numbers before the phases' layers: W1, b1, and version 4's pattern table. */
static inline int64_t first_layer_size(const int32_t *d)
{
    return shared_size(d[3]) + (d[0] == CKR_PIECENET_VERSION_PATTERNS ? (int64_t)CKR_PIECENET_PATTERN_ROWS * d[3] : 0);
}

/* [mover][class][bit] -> input index, -1 where that piece cannot stand.
 * Classes: 0 own men, 1 opponent's men, 2 own kings, 3 opponent's kings. */
short ckr_piecenet_input_of[2][4][64];

/* [mover][region][i] -> the bit of the region's i-th relative square, and
 * [mover][bit] -> the regions holding that bit's square with its weight. */
int8_t ckr_piecenet_region_bit[2][CKR_PIECENET_PATTERN_WINDOWS][8];
ckr_region_term ckr_piecenet_terms[2][64][4];
uint8_t ckr_piecenet_nterms[2][64];

static void regions_init(void)
{
    static const int tops[3] = {0, 2, 4};
    for (int m = 0; m < 2; m++) {
        for (int b = 0; b < 64; b++)
            ckr_piecenet_nterms[m][b] = 0;
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++) {
            int top = tops[w / 3], left = tops[w % 3], i = 0;
            for (int rs = 1; rs <= 32; rs++) {
                int row = (rs - 1) / 4, col = 2 * ((rs - 1) % 4) + (row % 2 == 0);
                if (row < top || row >= top + 4 || col < left || col >= left + 4)
                    continue;
                for (int b = 0; b <= 34; b++)
                    if (bb_rel_square(b, m) == rs) {
                        int weight = 1;
                        for (int k = 0; k < i; k++)
                            weight *= 3;
                        ckr_piecenet_terms[m][b][ckr_piecenet_nterms[m][b]++] =
                            (ckr_region_term){.region = (int8_t)w, .weight = (int16_t)weight};
                        ckr_piecenet_region_bit[m][w][i++] = (int8_t)b;
                    }
            }
        }
    }
}

void ckr_piecenet_init(void)
{
    regions_init();
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 4; c++)
            for (int b = 0; b < 64; b++) {
                int rs = b <= 34 ? bb_rel_square(b, m) : 0, idx = -1;
                if (rs > 0) {
                    switch (c) {
                    case 0: idx = rs <= 28 ? rs - 1 : -1; break;
                    case 1: idx = rs >= 5 ? 28 + rs - 5 : -1; break;
                    case 2: idx = 56 + rs - 1; break;
                    default: idx = 88 + rs - 1; break;
                    }
                }
                ckr_piecenet_input_of[m][c][b] = (short)idx;
            }
}

int ckr_piecenet_size(int phases, int width)
{
    if (phases < 1 || phases > CKR_PIECENET_MAX_PHASES || !width_ok(width))
        return 0;
    return shared_size(width) + phases * phase_size(width);
}

int ckr_piecenet_check(const int32_t *data, int64_t ndata)
{
    if (!data || ndata < HEAD || (data[0] != CKR_PIECENET_VERSION && data[0] != CKR_PIECENET_VERSION_PATTERNS))
        return -1;
    if (data[1] < 1 || data[1] > CKR_PIECENET_MAX_PHASES)
        return -2;
    if (!width_ok(data[3]))
        return -6;
    int64_t size = ckr_piecenet_size(data[1], data[3]);
    if (data[0] == CKR_PIECENET_VERSION_PATTERNS)
        size += (int64_t)CKR_PIECENET_PATTERN_ROWS * data[3];
    if (data[2] != size || ndata != HEAD + size)
        return -3;
    for (int i = 4; i < HEAD; i++)
        if (data[i] < 0 || data[i] >= data[1])
            return -4;
    for (int64_t i = HEAD; i < ndata; i++)
        if (data[i] < -32768 || data[i] > 32767)
            return -5;
    return 0;
}

static inline int32_t clip_one(int32_t v) { return v < 0 ? 0 : v > ONE ? ONE : v; }

int ckr_piecenet_value(const ckr_eval *eval, const ckr_pos *p)
{
    const int32_t *d = eval->data;
    int us = p->side, them = us ^ 1, h1 = d[3];
    int count = bb_popcount(p->pieces[0] | p->pieces[1]);
    const int32_t *w1 = d + HEAD, *b1 = w1 + N_IN * h1;
    const int32_t *net = w1 + first_layer_size(d) + (int64_t)d[4 + (count > 24 ? 24 : count)] * phase_size(h1);
    const int32_t *w2 = net, *b2 = w2 + h1 * H2, *w3 = b2 + H2, *b3 = w3 + H2;

    int32_t acc[H1_MAX];
    for (int j = 0; j < h1; j++)
        acc[j] = b1[j];
    const ckr_bb sets[4] = {
        p->pieces[us] & ~p->kings, p->pieces[them] & ~p->kings,
        p->pieces[us] & p->kings, p->pieces[them] & p->kings,
    };
    for (int c = 0; c < 4; c++)
        for (ckr_bb b = sets[c]; b; b &= b - 1) {
            int idx = ckr_piecenet_input_of[us][c][bb_lsb(b)];
            if (idx < 0)
                continue;
            const int32_t *row = w1 + idx * h1;
            for (int j = 0; j < h1; j++)
                acc[j] += row[j];
        }
    if (d[0] == CKR_PIECENET_VERSION_PATTERNS) {
        const int32_t *pat = b1 + h1;
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++) {
            const int32_t *row = pat + (int64_t)ckr_piecenet_pattern_row(p->pieces[us], p->pieces[them], us, w) * h1;
            for (int j = 0; j < h1; j++)
                acc[j] += row[j];
        }
    }

    int32_t acc2[H2] = {0};
    for (int j = 0; j < h1; j++) {
        int32_t h = clip_one(acc[j]);
        if (h == 0)
            continue;
        const int32_t *row = w2 + j * H2;
        for (int k = 0; k < H2; k++)
            acc2[k] += h * row[k];
    }
    int64_t out = (int64_t)b3[0] * ONE;
    for (int k = 0; k < H2; k++)
        out += (int64_t)clip_one((acc2[k] >> 8) + b2[k]) * w3[k];
    return (int)((out * 100 + 32768) >> 16);
}

int64_t ckr_piecenet_batch(const ckr_eval *eval, const uint32_t *sets, int64_t n, int32_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        const uint32_t *s = sets + 5 * i;
        ckr_pos pos;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            return i;
        out[i] = ckr_piecenet_value(eval, &pos);
    }
    return -1;
}
