/* piece_net_fast.c -- the piece network (ckr_piecenet.h) packed for the
 * search: int16 first-layer rows summed sixteen at a time, and the second
 * layer's rows interleaved in pairs so that one multiply-add (vpmaddwd) takes
 * two first-layer outputs at once.  It computes exactly the integers of
 * ckr_piecenet_value (tests/test_piece_net.py compares them), so node counts
 * do not depend on which path ran.  The search keeps the first layer in an
 * accumulator (piece_net_acc.c); ckr_piecenet_fast_value sums it from
 * scratch.  Every width (64, 128, 256) has its own unrolled copy of the loops.
 *
 * The int16 first-layer sums are exact only when no column can leave int16:
 * packing checks |b1| + the 24 largest |W1| of every column (+ each region's
 * largest |P| in version 4) and declines a network that could (the search then
 * uses the reference).  Version 4's pattern table is packed as rows of W1
 * after the 120 piece inputs (row N_IN + region * 6561 + pattern). */
#include <stdlib.h>
#include <string.h>
#include "piece_net_fast.h"

#define N_IN CKR_PIECENET_INPUTS
#define H2 CKR_PIECENET_H2
#define HEAD CKR_PIECENET_HEADER
#define ONE CKR_PIECENET_ONE
#define MAX_PIECES 24

#ifdef CKR_PIECENET_HAVE_FAST

#define INLINE static inline __attribute__((always_inline))

static int column_fits_int16(const int32_t *w1, const int32_t *b1, const int32_t *pat, int h1, int j)
{
    int32_t top[MAX_PIECES] = {0}; /* the largest |W1[i][j]| so far, descending */
    for (int i = 0; i < N_IN; i++) {
        int32_t v = abs(w1[i * h1 + j]);
        for (int t = 0; t < MAX_PIECES; t++)
            if (v > top[t]) {
                int32_t moved = top[t];
                top[t] = v;
                v = moved;
            }
    }
    int64_t bound = abs(b1[j]);
    for (int t = 0; t < MAX_PIECES; t++)
        bound += top[t];
    if (pat)
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++) {
            int32_t most = 0;
            for (int i = 0; i < 6561; i++) {
                int32_t v = abs(pat[((int64_t)w * 6561 + i) * h1 + j]);
                most = v > most ? v : most;
            }
            bound += most;
        }
    return bound <= 32767;
}

/* Bytes of the one block behind a packed network of width h1 and P phases:
 * W1, b1, each phase's W2, and the accumulator slots (all multiples of 32). */
static size_t block_size(int h1, int rows, int phases)
{
    return sizeof(int16_t) * ((size_t)rows * h1 + h1 + (size_t)phases * h1 * H2 + (size_t)PN_SLOTS * 2 * h1);
}

ckr_piecenet_fast *ckr_piecenet_fast_new(const ckr_eval *eval)
{
    if (eval->kind != CKR_EVAL_PIECENET || ckr_piecenet_check(eval->data, eval->ndata) != 0)
        return NULL;
    const int32_t *d = eval->data;
    int h1 = d[3], phases = d[1], patterns = d[0] == CKR_PIECENET_VERSION_PATTERNS;
    int rows = N_IN + (patterns ? CKR_PIECENET_PATTERN_ROWS : 0);
    const int32_t *w1 = d + HEAD, *b1 = w1 + N_IN * h1, *pat = patterns ? b1 + h1 : NULL;
    const int32_t *nets = b1 + h1 + (int64_t)(rows - N_IN) * h1;
    for (int j = 0; j < h1; j++)
        if (!column_fits_int16(w1, b1, pat, h1, j))
            return NULL;
    size_t size = (sizeof(ckr_piecenet_fast) + 31) & ~(size_t)31;
    ckr_piecenet_fast *f = aligned_alloc(32, size);
    int16_t *block = aligned_alloc(32, block_size(h1, rows, phases));
    if (!f || !block) {
        free(f);
        free(block);
        return NULL;
    }
    memset(f, 0, size);
    memset(block, 0, block_size(h1, rows, phases));
    f->block = block;
    f->h1 = h1;
    f->patterns = patterns;
    f->w1 = block;
    f->b1 = f->w1 + (size_t)rows * h1;
    int16_t *next = f->b1 + h1;
    for (int i = 0; i < N_IN * h1; i++)
        f->w1[i] = (int16_t)w1[i];
    for (int64_t i = 0; i < (int64_t)(rows - N_IN) * h1; i++)
        f->w1[(int64_t)N_IN * h1 + i] = (int16_t)pat[i];
    for (int j = 0; j < h1; j++)
        f->b1[j] = (int16_t)b1[j];
    for (int n = 0; n <= MAX_PIECES; n++)
        f->phase_of[n] = (uint8_t)d[4 + n];
    int phase_size = h1 * H2 + H2 + H2 + 1;
    for (int ph = 0; ph < phases; ph++) {
        const int32_t *w2 = nets + (int64_t)ph * phase_size, *b2 = w2 + h1 * H2, *w3 = b2 + H2;
        pn_phase *fp = &f->phase[ph];
        fp->w2 = next;
        next += h1 * H2;
        for (int j = 0; j < h1; j++)
            for (int k = 0; k < H2; k++)
                fp->w2[((j / 2) * H2 + k) * 2 + j % 2] = (int16_t)w2[j * H2 + k];
        for (int k = 0; k < H2; k++) {
            fp->b2[k] = b2[k];
            fp->w3[k] = w3[k];
        }
        fp->b3 = w3[H2];
    }
    for (int s = 0; s < PN_SLOTS; s++)
        for (int side = 0; side < 2; side++) {
            f->slot[s][side].acc = next;
            next += h1;
        }
    return f;
}

void ckr_piecenet_fast_free(ckr_piecenet_fast *f)
{
    if (f)
        free(f->block);
    free(f);
}

static inline __m256i load(const void *p) { return _mm256_load_si256((const __m256i *)p); }

INLINE void first_layer_w(const ckr_piecenet_fast *f, const ckr_pos *p, int side, int16_t *out, const int h1)
{
    __m256i acc[CKR_PIECENET_H1_MAX / 16];
    for (int v = 0; v < h1 / 16; v++)
        acc[v] = load(f->b1 + 16 * v);
    const ckr_bb sets[4] = {
        p->pieces[side] & ~p->kings, p->pieces[side ^ 1] & ~p->kings,
        p->pieces[side] & p->kings, p->pieces[side ^ 1] & p->kings,
    };
    for (int c = 0; c < 4; c++)
        for (ckr_bb b = sets[c]; b; b &= b - 1) {
            int idx = ckr_piecenet_input_of[side][c][bb_lsb(b)];
            if (idx < 0)
                continue;
            const int16_t *row = f->w1 + idx * h1;
            for (int v = 0; v < h1 / 16; v++)
                acc[v] = _mm256_add_epi16(acc[v], load(row + 16 * v));
        }
    if (f->patterns)
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++) {
            int idx = N_IN + ckr_piecenet_pattern_row(p->pieces[side], p->pieces[side ^ 1], side, w);
            const int16_t *row = f->w1 + (size_t)idx * h1;
            for (int v = 0; v < h1 / 16; v++)
                acc[v] = _mm256_add_epi16(acc[v], load(row + 16 * v));
        }
    for (int v = 0; v < h1 / 16; v++)
        _mm256_store_si256((__m256i *)(out + 16 * v), acc[v]);
}

void pn_first_layer(const ckr_piecenet_fast *f, const ckr_pos *p, int side, int16_t *acc)
{
    switch (f->h1) {
    case 64: first_layer_w(f, p, side, acc, 64); break;
    case 128: first_layer_w(f, p, side, acc, 128); break;
    default: first_layer_w(f, p, side, acc, 256); break;
    }
}

INLINE int output_w(const ckr_piecenet_fast *f, const int16_t *acc, int pieces, const int h1)
{
    const pn_phase *fp = &f->phase[f->phase_of[pieces > MAX_PIECES ? MAX_PIECES : pieces]];
    const __m256i zero = _mm256_setzero_si256(), one16 = _mm256_set1_epi16(ONE);
    __m256i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (int v = 0; v < h1 / 16; v++) {
        __m256i h = _mm256_min_epi16(_mm256_max_epi16(load(acc + 16 * v), zero), one16);
        /* Most first-layer outputs clip to zero: visit only the pairs
         * (h[2q], h[2q+1]) with a nonzero member, as 32-bit lanes. */
        unsigned live = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(h, zero))) & 0xFF;
        if (!live)
            continue;
        _Alignas(32) int32_t pair[8];
        _mm256_store_si256((__m256i *)pair, h);
        for (; live; live &= live - 1) {
            int t = __builtin_ctz(live);
            __m256i hq = _mm256_set1_epi32(pair[t]);
            const int16_t *w = fp->w2 + (8 * v + t) * 2 * H2;
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(hq, load(w)));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(hq, load(w + 16)));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(hq, load(w + 32)));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(hq, load(w + 48)));
        }
    }
    const __m256i one32 = _mm256_set1_epi32(ONE);
    __m256i s[4] = {s0, s1, s2, s3}, total = zero;
    for (int r = 0; r < 4; r++) {
        __m256i v = _mm256_add_epi32(_mm256_srai_epi32(s[r], 8), load(fp->b2 + 8 * r));
        v = _mm256_min_epi32(_mm256_max_epi32(v, zero), one32);
        total = _mm256_add_epi32(total, _mm256_mullo_epi32(v, load(fp->w3 + 8 * r)));
    }
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
    int64_t out = (int64_t)fp->b3 * ONE + _mm_cvtsi128_si32(t);
    return (int)((out * 100 + 32768) >> 16);
}

int pn_output(const ckr_piecenet_fast *f, const int16_t *acc, int pieces)
{
    switch (f->h1) {
    case 64: return output_w(f, acc, pieces, 64);
    case 128: return output_w(f, acc, pieces, 128);
    default: return output_w(f, acc, pieces, 256);
    }
}

int ckr_piecenet_fast_value(const ckr_piecenet_fast *f, const ckr_pos *p)
{
    _Alignas(32) int16_t acc[CKR_PIECENET_H1_MAX];
    pn_first_layer(f, p, p->side, acc);
    return pn_output(f, acc, bb_popcount(p->pieces[0] | p->pieces[1]));
}

#else /* no AVX2: the search uses the reference evaluator */

ckr_piecenet_fast *ckr_piecenet_fast_new(const ckr_eval *eval) { return NULL; }
void ckr_piecenet_fast_free(ckr_piecenet_fast *f) { (void)f; }
int ckr_piecenet_fast_value(const ckr_piecenet_fast *f, const ckr_pos *p) { return 0; }

#endif

int ckr_piecenet_packed_build(void)
{
#ifdef CKR_PIECENET_HAVE_FAST
    return 1;
#else
    return 0;
#endif
}

int64_t ckr_piecenet_batch_packed(const ckr_eval *eval, const uint32_t *sets, int64_t n, int32_t *out)
{
    ckr_piecenet_fast *f = ckr_piecenet_fast_new(eval);
    if (!f)
        return -2;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        const uint32_t *s = sets + 5 * i;
        ckr_pos pos;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            bad = i;
        else
            out[i] = ckr_piecenet_fast_value(f, &pos);
    }
    ckr_piecenet_fast_free(f);
    return bad;
}
