/* core_check.c -- a standalone driver for sanitizer builds of the C core:
 * runs perft from the start position and a short search, and checks the
 * counts.  Built and run by scripts/sanitize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../ckr.h"

static const uint64_t expected[] = {1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931,
                                    3963680, 18391564};

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
        for (int mode = 0; mode < 3; mode++) {
            lim.mode = mode;
            lim.depth = mode == CKR_MODE_PVS ? 10 : mode == CKR_MODE_SAMUEL ? 3 : 4;
            int n = ckr_search(e, &p, 0, 0, &lim, &info);
            printf("search mode %d: %d moves, depth %d score %d nodes %lld pv %d\n", mode, n,
                   info.depth, info.score, (long long)info.nodes, info.pvlen);
            if (n != 7 || info.pvlen < 1)
                bad = 1;
        }
        lim.mode = CKR_MODE_PVS;
        lim.depth = 9;
        ckr_search(e, &k, 0, 0, &lim, &info);
        printf("kings search: depth %d score %d nodes %lld\n", info.depth, info.score, (long long)info.nodes);
        ckr_engine_free(e);
    }
    printf(bad ? "FAILED\n" : "OK\n");
    return bad;
}
