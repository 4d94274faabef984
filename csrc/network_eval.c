/* network_eval.c -- Chellapilla and Fogel's evolved network (1999), CKR_EVAL_NETWORK.
 *
 * BLONDIE (their 1999 network, 32-40-10-1, 1,741 numbers), in this order:
 *   w1[32][40]  square-major: the 40 first-layer weights of square 1, then 2...
 *   b1[40]
 *   w2[40][10]  first-layer node-major
 *   b2[10]
 *   w3[10], b3
 * h1 = tanh(b1 + x w1), h2 = tanh(b2 + h1 w2), out = tanh(b3 + h2 w3 + sum x):
 * the sum of the inputs (the piece differential, kings counted K) goes to the
 * output node with weight 1, as their Fig. 2 has it.
 *
 * SPATIAL (their 2001 network, 5,046 numbers): first the 91 sub-squares of the
 * board, every k x k block for k = 3..8 (36 + 25 + 16 + 9 + 4 + 1), in order of
 * k, then top row first, then left column first; each has one weight for each
 * playable square inside it (in square order) and a bias, 945 numbers in all.
 * Their tanh outputs feed a 91-40-10-1 network laid out as above (w1 is
 * [91][40]); the piece differential again goes to the output.
 *
 * Squares: square s (1..32) is on row (s-1)/4 from Black's side, and on
 * column 2((s-1)%4) + 1 on even rows, 2((s-1)%4) on odd ones.
 *
 * tanh is a [7/6] Pade approximant clamped to [-1, 1] (within 1e-4 of tanh
 * everywhere): the library's tanhf costs more than all the multiplications.
 * Numbers are read from the int32 words with memcpy (no type punning). */
#include <math.h>
#include <string.h>
#include "bitboard.h"

#define N_SQ 32
#define H1 40
#define H2 10
#define N_SUB 91
#define SUB_WEIGHTS 854

static int sq_of_bit[64];          /* bit -> square index 0..31, -1 off the board */
static int sub_first[N_SUB + 1];   /* offsets of each sub-square's squares in sub_squares[] */
static unsigned char sub_squares[SUB_WEIGHTS];

static inline float num(const int32_t *d, int i)
{
    float f;
    memcpy(&f, d + i, sizeof f);
    return f;
}

static inline float fast_tanh(float x)
{
    float x2 = x * x;
    float p = x * (135135.0f + x2 * (17325.0f + x2 * (378.0f + x2)));
    float q = 135135.0f + x2 * (62370.0f + x2 * (3150.0f + 28.0f * x2));
    float t = p / q;
    return t > 1.0f ? 1.0f : t < -1.0f ? -1.0f : t;
}

void ckr_network_init(void)
{
    for (int b = 0; b < 64; b++)
        sq_of_bit[b] = -1;
    for (int s = 1; s <= 32; s++)
        sq_of_bit[ckr_square_to_bit(s)] = s - 1;
    int n = 0, k_index = 0;
    for (int k = 3; k <= 8; k++)
        for (int r0 = 0; r0 + k <= 8; r0++)
            for (int c0 = 0; c0 + k <= 8; c0++) {
                sub_first[k_index++] = n;
                for (int s = 0; s < 32; s++) {
                    int r = s / 4, c = 2 * (s % 4) + (r % 2 == 0 ? 1 : 0);
                    if (r >= r0 && r < r0 + k && c >= c0 && c < c0 + k)
                        sub_squares[n++] = (unsigned char)s;
                }
            }
    sub_first[k_index] = n; /* == SUB_WEIGHTS */
}

int ckr_network_size(int preset)
{
    if (preset == CKR_NETWORK_BLONDIE)
        return N_SQ * H1 + H1 + H1 * H2 + H2 + H2 + 1;
    if (preset == CKR_NETWORK_SPATIAL)
        return SUB_WEIGHTS + N_SUB + N_SUB * H1 + H1 + H1 * H2 + H2 + H2 + 1;
    return 0;
}

int ckr_network_check(const int32_t *data, int64_t ndata)
{
    if (!data || ndata < CKR_NETWORK_HEADER || data[0] != CKR_NETWORK_VERSION)
        return -1;
    int size = ckr_network_size(data[1] & ~CKR_NETWORK_EXACT);
    if (size == 0)
        return -2;
    if (data[2] != size || ndata != CKR_NETWORK_HEADER + size)
        return -3;
    for (int i = 3; i < CKR_NETWORK_HEADER + size; i++)
        if (!isfinite(num(data, i)))
            return -4;
    float k = num(data, 3);
    if (k < 1.0f || k > 3.0f)
        return -5;
    return 0;
}

/* The last two layers (40 -> 10 -> 1), from the first hidden layer's sums. */
static float tail(const int32_t *w, const float *sum1, float diff)
{
    const int32_t *b1 = w, *w2 = w + H1, *b2 = w2 + H1 * H2, *w3 = b2 + H2, *b3 = w3 + H2;
    float h2[H2];
    for (int k = 0; k < H2; k++)
        h2[k] = num(b2, k);
    for (int j = 0; j < H1; j++) {
        float h = fast_tanh(sum1[j] + num(b1, j));
        for (int k = 0; k < H2; k++)
            h2[k] += h * num(w2, j * H2 + k);
    }
    float out = num(b3, 0) + diff;
    for (int k = 0; k < H2; k++)
        out += fast_tanh(h2[k]) * num(w3, k);
    return out; /* before the output node's tanh */
}

/* The inputs from ``side``'s point of view: x[s] and their sum. */
static float inputs(const ckr_pos *p, int side, float king, float *x)
{
    float diff = 0.0f;
    memset(x, 0, N_SQ * sizeof *x);
    for (int c = 0; c < 2; c++) {
        float sign = c == side ? 1.0f : -1.0f;
        for (ckr_bb b = p->pieces[c]; b; b &= b - 1) {
            int bit = bb_lsb(b);
            float v = sign * ((p->kings >> bit) & 1 ? king : 1.0f);
            x[sq_of_bit[bit]] = v;
            diff += v;
        }
    }
    return diff;
}

static float blondie(const int32_t *w, const float *x, float diff)
{
    float sum1[H1] = {0};
    for (int s = 0; s < N_SQ; s++) {
        float v = x[s];
        if (v == 0.0f)
            continue;  /* most squares are empty: the first layer is a sparse sum */
        const int32_t *col = w + s * H1;
        for (int j = 0; j < H1; j++)
            sum1[j] += v * num(col, j);
    }
    return tail(w + N_SQ * H1, sum1, diff);
}

static float spatial(const int32_t *w, const float *x, float diff)
{
    const int32_t *wsub = w, *w1 = w + SUB_WEIGHTS + N_SUB;
    float sum1[H1] = {0};
    int at = 0;
    for (int i = 0; i < N_SUB; i++) {
        float z = 0.0f;
        for (int n = sub_first[i]; n < sub_first[i + 1]; n++)
            z += x[sub_squares[n]] * num(wsub, at++);
        float h = fast_tanh(z + num(wsub, at++));
        const int32_t *row = w1 + i * H1;
        for (int j = 0; j < H1; j++)
            sum1[j] += h * num(row, j);
    }
    return tail(w1 + N_SUB * H1, sum1, diff);
}

double ckr_network_sum(const ckr_eval *eval, const ckr_pos *pos, int side)
{
    const int32_t *d = eval->data;
    float x[N_SQ];
    float diff = inputs(pos, side, num(d, 3), x);
    const int32_t *w = d + CKR_NETWORK_HEADER;
    int preset = d[1] & ~CKR_NETWORK_EXACT;
    return preset == CKR_NETWORK_SPATIAL ? spatial(w, x, diff) : blondie(w, x, diff);
}

double ckr_network_output(const ckr_eval *eval, const ckr_pos *pos, int side)
{
    return fast_tanh((float)ckr_network_sum(eval, pos, side));
}

int ckr_network_value(const ckr_eval *eval, const ckr_pos *pos, int side)
{
    if (eval->data[1] & CKR_NETWORK_EXACT) {
        double s = ckr_network_sum(eval, pos, side) * CKR_NETWORK_SCALE;
        double bound = CKR_WIN_BOUND - 1;
        return (int)lrint(s > bound ? bound : s < -bound ? -bound : s);
    }
    return (int)lrint(ckr_network_output(eval, pos, side) * CKR_NETWORK_SCALE);
}

int64_t ckr_network_bench(const ckr_eval *eval, const ckr_pos *positions, int n, int rounds)
{
    int64_t total = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++)
            total += ckr_network_value(eval, &positions[i], positions[i].side);
    return total;
}
