/* core_check.c -- a standalone driver for sanitizer builds of the C core:
 * runs perft from the start position and a short search, and checks the
 * counts; then searches with each evaluator file named after the depth.
 * Built and run by scripts/sanitize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../ckr.h"

static const uint64_t expected[] = {1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931,
                                    3963680, 18391564};

/* An evaluator dumped by csrc/tests/dump_evaluators.py: searches with it in
 * every mode, from the start and from a later position (so the learners'
 * evaluators see parents, game plies and kings). */
static int eval_check(ckr_engine *e, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("cannot open %s\n", path);
        return 1;
    }
    int32_t head[2 + 64 + 32 + 32 + 1];
    int bad = fread(head, sizeof head, 1, f) != 1;
    ckr_eval ev;
    memset(&ev, 0, sizeof ev);
    int32_t *data = NULL;
    if (!bad) {
        ev.kind = head[0];
        ev.nweights = head[1];
        memcpy(ev.weights, head + 2, sizeof ev.weights);
        memcpy(ev.man_table, head + 66, sizeof ev.man_table);
        memcpy(ev.king_table, head + 98, sizeof ev.king_table);
        ev.ndata = head[130];
        data = malloc(sizeof(int32_t) * (size_t)(ev.ndata ? ev.ndata : 1));
        bad = !data || (ev.ndata && fread(data, sizeof(int32_t), (size_t)ev.ndata, f) != (size_t)ev.ndata);
        ev.data = data;
    }
    fclose(f);
    if (bad) {
        printf("bad evaluator file %s\n", path);
        free(data);
        return 1;
    }
    ckr_engine_set_eval(e, &ev);
    ckr_pos start, later;
    ckr_pos_set(&start, 0xFFFu, 0, 0xFFF00000u, 0, CKR_BLACK);
    /* Black men 1-3, 9, 14; a black king on 27; white men 22, 30-32; a white king on 6. */
    ckr_pos_set(&later, 0x2107u, 0x4000000u, 0xE0200000u, 0x20u, CKR_WHITE);
    const ckr_pos *roots[2] = {&start, &later};
    for (int r = 0; r < 2; r++)
        for (int mode = 0; mode <= CKR_MODE_SHANNON_B; mode++) {
            ckr_limits lim;
            memset(&lim, 0, sizeof lim);
            lim.mode = mode;
            lim.depth = mode == CKR_MODE_PVS ? 7 : mode == CKR_MODE_SAMUEL ? 3 : 4;
            lim.game_ply = r ? 45 : 0;
            if (r) {
                lim.has_parent = 1;
                lim.parent = *roots[r];
                lim.parent.side ^= 1;
            }
            ckr_info info;
            ckr_engine_clear(e);
            int n = ckr_search(e, roots[r], 0, 0, &lim, &info);
            if (n < 1 || info.pvlen < 1)
                bad = 1;
        }
    ckr_eval fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.kind = CKR_EVAL_DEFAULT;
    ckr_engine_set_eval(e, &fallback);
    free(data);
    printf("evaluator %s: %s\n", path, bad ? "FAILED" : "ok");
    return bad;
}

/* Rote memory: standardization, insert/delete churn, and a search whose leaf
 * is found in the memory (csrc/rote.c). */
static int rote_check(ckr_engine *e)
{
    int bad = 0;
    ckr_rote_key a, b;
    /* A position and its colour-reversed twin share a key. */
    ckr_rote_key_sets(0x3u, 0, 0x80000000u, 0, CKR_BLACK, &a);
    ckr_rote_key_sets(0x1u, 0, 0xC0000000u, 0, CKR_WHITE, &b);
    if (a.black != b.black || a.white != b.white || a.kings != b.kings)
        bad = 1;
    /* Kings only: square 1 and its reflection about the long diagonal, 32. */
    ckr_rote_key_sets(0, 0x1u, 0, 0x10000u, CKR_BLACK, &a);
    ckr_rote_key_sets(0, 0x80000000u, 0, 0x8000u, CKR_BLACK, &b);
    if (a.black != b.black || a.white != b.white)
        bad = 1;
    ckr_rote *r = ckr_rote_new(4);
    for (uint32_t i = 1; i <= 5000; i++) {
        ckr_rote_key k = {i, i << 12, 0};
        ckr_rote_put(r, &k, (int)i % 700, (int)i % 9);
    }
    for (uint32_t i = 1; i <= 5000; i += 2) {
        ckr_rote_key k = {i, i << 12, 0};
        ckr_rote_del(r, &k);
    }
    for (uint32_t i = 1; i <= 5000; i++) {
        ckr_rote_key k = {i, i << 12, 0};
        int s, d, got = ckr_rote_get(r, &k, &s, &d);
        if (got != (int)(i % 2 == 0) || (got && (s != (int)i % 700 || d != (int)i % 9)))
            bad = 1;
    }
    ckr_rote *c = ckr_rote_clone(r, 20000);
    if (ckr_rote_count(c) != 2500 || ckr_rote_count(r) != 2500)
        bad = 1;
    ckr_rote_free(r);
    /* Every position after two plies from the start, stored with a score. */
    ckr_pos p, q;
    ckr_move m1[CKR_MAX_MOVES], m2[CKR_MAX_MOVES];
    ckr_pos_set(&p, 0xFFFu, 0, 0xFFF00000u, 0, CKR_BLACK);
    int n1 = ckr_gen_moves(&p, m1);
    for (int i = 0; i < n1; i++) {
        q = p;
        ckr_make(&q, &m1[i]);
        int n2 = ckr_gen_moves(&q, m2);
        for (int j = 0; j < n2; j++) {
            ckr_pos t = q;
            ckr_make(&t, &m2[j]);
            ckr_rote_key k;
            ckr_rote_key_of(&t, &k);
            ckr_rote_put(c, &k, i == 3 && j == 0 ? 900 : -50, 6);
        }
    }
    ckr_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.mode = CKR_MODE_PVS;
    lim.depth = 2;
    ckr_info info;
    ckr_engine_clear(e);
    ckr_engine_set_rote(e, c);
    ckr_search(e, &p, 0, 0, &lim, &info);
    ckr_engine_set_rote(e, 0);
    printf("rote search: score %d rote_hits %lld rote_depth %d\n", info.score, (long long)info.rote_hits,
           info.rote_depth);
    if (info.rote_hits < 1 || info.rote_depth != 8 || ckr_rote_used(c, 0, 0) < 1)
        bad = 1;
    ckr_rote_free(c);
    return bad;
}

/* The endgame database of 2..3 pieces with distances: built, checked against
 * its successors, and probed by searches (a won root, captures into it). */
static int egdb_check(ckr_engine *e)
{
    ckr_egdb *db = ckr_egdb_new();
    int bad = 0, sigs = 0;
    for (int total = 2; total <= 3; total++)
        for (int men = 0; men <= total; men++)
            for (int bm = 0; bm <= men; bm++)
                for (int bk = 0; bk <= total - men; bk++) {
                    int wm = men - bm, wk = total - men - bk;
                    if (!(bm + bk) || !(wm + wk))
                        continue;
                    sigs++;
                    if (ckr_egdb_build(db, bm, bk, wm, wk) < 1 || ckr_egdb_build_distance(db, bm, bk, wm, wk) < 0)
                        bad = 1;
                    int64_t counts[4];
                    for (int side = 0; side < 2; side++)
                        if (ckr_egdb_check(db, bm, bk, wm, wk, side, counts) != 0 ||
                            ckr_egdb_check_distance(db, bm, bk, wm, wk, side) != 0)
                            bad = 1;
                }
    ckr_engine_set_egdb(e, db, 3);
    ckr_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.mode = CKR_MODE_PVS;
    lim.depth = 12;
    ckr_info info;
    ckr_pos won, four;
    ckr_pos_set(&won, 0, 0x3u, 0, 1u << 9, CKR_BLACK);             /* B:WK10:BK1,K2 */
    ckr_pos_set(&four, 0, 0x3u, 0, (1u << 13) | (1u << 22), CKR_BLACK); /* B:WK14,K23:BK1,K2 */
    ckr_engine_clear(e);
    ckr_search(e, &won, 0, 0, &lim, &info);
    printf("egdb: %d signatures; won root value %d score %d\n", sigs, info.egdb_root, info.score);
    if (info.egdb_root != CKR_EGDB_WIN || info.score <= CKR_DB_BOUND)
        bad = 1;
    ckr_search(e, &four, 0, 0, &lim, &info);
    printf("egdb: four pieces, %lld probes\n", (long long)info.egdb_hits);
    if (info.egdb_root != -1 || info.egdb_hits < 1)
        bad = 1;
    ckr_engine_set_egdb(e, 0, 0);
    ckr_egdb_free(db);
    return bad;
}

/* The searched PV, as squares, is legal in whole; a line spoiled at move k is legal up to k. */
static int legal_prefix_check(const ckr_pos *p, const ckr_info *info)
{
    uint8_t squares[CKR_MAX_PV * 13], lens[CKR_MAX_PV];
    int at = 0, bad = 0;
    for (int k = 0; k < info->pvlen; k++) {
        const ckr_move *m = &info->pv[k];
        squares[at++] = (uint8_t)ckr_bit_to_square(m->from);
        if (!m->ncaps)
            squares[at++] = (uint8_t)ckr_bit_to_square(m->to);
        for (int j = 0; j < m->ncaps; j++)
            squares[at++] = (uint8_t)ckr_bit_to_square(m->path[j]);
        lens[k] = (uint8_t)(m->ncaps ? m->ncaps + 1 : 2);
    }
    int whole = ckr_legal_prefix(p, squares, lens, info->pvlen);
    int spoiled = -1;
    if (info->pvlen >= 3) {
        squares[lens[0] + lens[1] - 1] = squares[lens[0]]; /* move 2 now lands where it starts */
        spoiled = ckr_legal_prefix(p, squares, lens, info->pvlen);
    }
    printf("legal prefix: pv %d whole %d spoiled %d\n", info->pvlen, whole, spoiled);
    if (whole != info->pvlen || (info->pvlen >= 3 && spoiled != 1))
        bad = 1;
    return bad;
}

int main(int argc, char **argv)
{
    int maxdepth = argc > 1 ? atoi(argv[1]) : 8;
    ckr_pos p;
    ckr_pos_set(&p, 0xFFFu, 0, 0xFFF00000u, 0, CKR_BLACK);
    int bad = 0;
    for (int d = 1; d <= maxdepth && d <= 10; d++) {
        uint64_t n = ckr_perft(&p, d, 1), m = ckr_perft(&p, d, 0);
        printf("perft %d %llu %llu\n", d, (unsigned long long)n, (unsigned long long)m);
        if (n != expected[d] || m != expected[d])
            bad = 1;
    }
    /* A position full of kings exercises the capture recursion in all directions. */
    ckr_pos k;
    ckr_pos_set(&k, 0x0000F00Fu, 0x00F00000u, 0x0F000000u, 0x000F0F00u, CKR_WHITE);
    uint64_t kb = ckr_perft(&k, 5, 1), kf = ckr_perft(&k, 5, 0);
    printf("kings perft 5 %llu %llu\n", (unsigned long long)kb, (unsigned long long)kf);
    if (kb != kf)
        bad = 1;
    if (maxdepth >= 0) {
        ckr_engine *e = ckr_engine_new(4);
        ckr_limits lim;
        memset(&lim, 0, sizeof lim);
        ckr_info info;
        for (int mode = 0; mode <= CKR_MODE_SHANNON_B; mode++) {
            lim.mode = mode;
            lim.depth = mode == CKR_MODE_PVS ? 10 : mode == CKR_MODE_SAMUEL ? 3 : 4;
            int n = ckr_search(e, &p, 0, 0, &lim, &info);
            printf("search mode %d: %d moves, depth %d score %d nodes %lld pv %d\n", mode, n,
                   info.depth, info.score, (long long)info.nodes, info.pvlen);
            if (n != 7 || info.pvlen < 1)
                bad = 1;
            if (mode == CKR_MODE_PVS)
                bad |= legal_prefix_check(&p, &info);
        }
        lim.mode = CKR_MODE_PVS;
        lim.depth = 9;
        ckr_search(e, &k, 0, 0, &lim, &info);
        printf("kings search: depth %d score %d nodes %lld\n", info.depth, info.score, (long long)info.nodes);
        bad |= rote_check(e);
        bad |= egdb_check(e);
        for (int i = 2; i < argc; i++)
            bad |= eval_check(e, argv[i]);
        ckr_engine_free(e);
    }
    printf(bad ? "FAILED\n" : "OK\n");
    return bad;
}
