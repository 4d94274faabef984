/* position.c -- square mapping, Zobrist keys, setting up and reading positions,
 * and ckr_init, which builds every table of the core once. */
#include <pthread.h>
#include "bitboard.h"

uint64_t ckr_zobrist[4][64];
uint64_t ckr_zobrist_side;

/* splitmix64: a fixed seed keeps hashes (and so node counts) reproducible. */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void build_tables(void)
{
    uint64_t seed = 0x53414D55454CULL; /* "SAMUEL" */
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 64; b++)
            ckr_zobrist[k][b] = splitmix(&seed);
    ckr_zobrist_side = splitmix(&seed);
    ckr_evaluate_init();
    ckr_network_init();
    ckr_piecenet_init();
}

/* The tables are written once, before any search can read them: pthread_once
 * makes every caller wait for the build and see it complete, so the readers
 * (searches on many threads) need no checks of their own. */
void ckr_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_tables);
}

int ckr_square_to_bit(int square)
{
    if (square < 1 || square > 32)
        return -1;
    return (square - 1) + (square - 1) / 8;
}

int ckr_bit_to_square(int bit)
{
    if (bit < 0 || bit > 34 || !(CKR_BB_BOARD & bb_bit(bit)))
        return -1;
    return bit - bit / 9 + 1;
}

static ckr_bb squares_to_bb(uint32_t set)
{
    ckr_bb b = 0;
    for (int s = 1; s <= 32; s++)
        if (set & (1u << (s - 1)))
            b |= bb_bit(ckr_square_to_bit(s));
    return b;
}

static uint32_t bb_to_squares(ckr_bb b)
{
    uint32_t set = 0;
    while (b) {
        int bit = bb_lsb(b);
        b &= b - 1;
        set |= 1u << (ckr_bit_to_square(bit) - 1);
    }
    return set;
}

uint64_t ckr_pos_hash(const ckr_pos *p)
{
    uint64_t h = p->side ? ckr_zobrist_side : 0;
    for (int c = 0; c < 2; c++) {
        ckr_bb b = p->pieces[c];
        while (b) {
            int bit = bb_lsb(b);
            b &= b - 1;
            h ^= zob(c, (p->kings >> bit) & 1, bit);
        }
    }
    return h;
}

int ckr_pos_set(ckr_pos *p, uint32_t black_men, uint32_t black_kings,
                uint32_t white_men, uint32_t white_kings, int side)
{
    ckr_init();
    uint32_t all[4] = {black_men, black_kings, white_men, white_kings};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (all[i] & all[j])
                return -1;
    p->pieces[CKR_BLACK] = squares_to_bb(black_men | black_kings);
    p->pieces[CKR_WHITE] = squares_to_bb(white_men | white_kings);
    p->kings = squares_to_bb(black_kings | white_kings);
    p->side = side ? CKR_WHITE : CKR_BLACK;
    p->reserved = 0;
    p->hash = ckr_pos_hash(p);
    return 0;
}

void ckr_pos_get(const ckr_pos *p, uint32_t *out4)
{
    out4[0] = bb_to_squares(p->pieces[CKR_BLACK] & ~p->kings);
    out4[1] = bb_to_squares(p->pieces[CKR_BLACK] & p->kings);
    out4[2] = bb_to_squares(p->pieces[CKR_WHITE] & ~p->kings);
    out4[3] = bb_to_squares(p->pieces[CKR_WHITE] & p->kings);
}
