/* piece_net_fast.c -- the piece network (ckr_piecenet.h) packed for the
 * search: int16 first-layer rows summed sixteen at a time, and the second
 * layer's rows interleaved in pairs so that one multiply-add (vpmaddwd) takes
 * two first-layer outputs at once.  It computes exactly the integers of
 * ckr_piecenet_value (tests/test_piece_net_fast.py compares them), so node
 * counts do not depend on which path ran.
 *
 * The int16 first-layer sums are exact only when no column can leave int16:
 * packing checks |b1| + the 24 largest |W1| of every column and declines a
 * network that could (the search then uses the reference). */
#include <stdlib.h>
#include <string.h>
#include "bitboard.h"

#define N_IN CKR_PIECENET_INPUTS
#define H1 CKR_PIECENET_H1
#define H2 CKR_PIECENET_H2
#define HEAD CKR_PIECENET_HEADER
#define ONE CKR_PIECENET_ONE
#define PHASE_SIZE (H1 * H2 + H2 + H2 + 1)
#define MAX_PIECES 24

#if defined(__AVX2__) && H1 % 16 == 0 && H2 == 32
#include <immintrin.h>
#define HAVE_FAST 1
#define NV (H1 / 16) /* first-layer vectors of sixteen int16 */

typedef struct fast_phase {
    _Alignas(32) int16_t w2[H1 / 2][H2][2]; /* [pair of inputs][output][which of the pair] */
    _Alignas(32) int32_t b2[H2];
    _Alignas(32) int32_t w3[H2];
    int32_t b3;
} fast_phase;

struct ckr_piecenet_fast {
    _Alignas(32) int16_t w1[N_IN][H1];
    _Alignas(32) int16_t b1[H1];
    uint8_t phase_of[MAX_PIECES + 1];
    fast_phase phase[CKR_PIECENET_MAX_PHASES];
};

static int column_fits_int16(const int32_t *w1, const int32_t *b1, int j)
{
    int32_t top[MAX_PIECES] = {0}; /* the largest |W1[i][j]| so far, descending */
    for (int i = 0; i < N_IN; i++) {
        int32_t v = abs(w1[i * H1 + j]);
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
    return bound <= 32767;
}

ckr_piecenet_fast *ckr_piecenet_fast_new(const ckr_eval *eval)
{
    if (eval->kind != CKR_EVAL_PIECENET || ckr_piecenet_check(eval->data, eval->ndata) != 0)
        return NULL;
    const int32_t *d = eval->data;
    const int32_t *w1 = d + HEAD, *b1 = w1 + N_IN * H1, *nets = b1 + H1;
    for (int j = 0; j < H1; j++)
        if (!column_fits_int16(w1, b1, j))
            return NULL;
    size_t size = (sizeof(ckr_piecenet_fast) + 31) & ~(size_t)31;
    ckr_piecenet_fast *f = aligned_alloc(32, size);
    if (!f)
        return NULL;
    memset(f, 0, size);
    for (int i = 0; i < N_IN; i++)
        for (int j = 0; j < H1; j++)
            f->w1[i][j] = (int16_t)w1[i * H1 + j];
    for (int j = 0; j < H1; j++)
        f->b1[j] = (int16_t)b1[j];
    for (int n = 0; n <= MAX_PIECES; n++)
        f->phase_of[n] = (uint8_t)d[3 + n];
    for (int ph = 0; ph < d[1]; ph++) {
        const int32_t *w2 = nets + (int64_t)ph * PHASE_SIZE, *b2 = w2 + H1 * H2, *w3 = b2 + H2;
        fast_phase *fp = &f->phase[ph];
        for (int j = 0; j < H1; j++)
            for (int k = 0; k < H2; k++)
                fp->w2[j / 2][k][j % 2] = (int16_t)w2[j * H2 + k];
        for (int k = 0; k < H2; k++) {
            fp->b2[k] = b2[k];
            fp->w3[k] = w3[k];
        }
        fp->b3 = w3[H2];
    }
    return f;
}

void ckr_piecenet_fast_free(ckr_piecenet_fast *f) { free(f); }

static inline __m256i load(const void *p) { return _mm256_load_si256((const __m256i *)p); }

int ckr_piecenet_fast_value(const ckr_piecenet_fast *f, const ckr_pos *p)
{
    int us = p->side, them = us ^ 1;
    int count = bb_popcount(p->pieces[0] | p->pieces[1]);
    const fast_phase *fp = &f->phase[f->phase_of[count > MAX_PIECES ? MAX_PIECES : count]];

    __m256i acc[NV];
    for (int v = 0; v < NV; v++)
        acc[v] = load(f->b1 + 16 * v);
    const ckr_bb sets[4] = {
        p->pieces[us] & ~p->kings, p->pieces[them] & ~p->kings,
        p->pieces[us] & p->kings, p->pieces[them] & p->kings,
    };
    for (int c = 0; c < 4; c++)
        for (ckr_bb b = sets[c]; b; b &= b - 1) {
            int idx = ckr_piecenet_input_of[us][c][bb_lsb(b)];
            if (idx < 0)
                continue;
            for (int v = 0; v < NV; v++)
                acc[v] = _mm256_add_epi16(acc[v], load(f->w1[idx] + 16 * v));
        }
    const __m256i zero = _mm256_setzero_si256(), one16 = _mm256_set1_epi16(ONE);
    union {
        __m256i v[NV];
        int32_t pair[H1 / 2]; /* (h[2q], h[2q+1]) as the low and high halves */
    } h;
    for (int v = 0; v < NV; v++)
        h.v[v] = _mm256_min_epi16(_mm256_max_epi16(acc[v], zero), one16);

    __m256i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (int q = 0; q < H1 / 2; q++) {
        if (h.pair[q] == 0)
            continue; /* most first-layer outputs clip to zero */
        __m256i hq = _mm256_set1_epi32(h.pair[q]);
        const int16_t *w = fp->w2[q][0];
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(hq, load(w)));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(hq, load(w + 16)));
        s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(hq, load(w + 32)));
        s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(hq, load(w + 48)));
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

#else /* no AVX2: the search uses the reference evaluator */

ckr_piecenet_fast *ckr_piecenet_fast_new(const ckr_eval *eval) { return NULL; }
void ckr_piecenet_fast_free(ckr_piecenet_fast *f) { (void)f; }
int ckr_piecenet_fast_value(const ckr_piecenet_fast *f, const ckr_pos *p) { return 0; }

#endif

int ckr_piecenet_packed_build(void)
{
#ifdef HAVE_FAST
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
