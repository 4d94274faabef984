/* tsan_check.c -- concurrency check of the C core, for a ThreadSanitizer
 * build (scripts/sanitize runs it with TSAN_OPTIONS=halt_on_error=1, so any
 * data race fails the run).
 *
 *   1. Many threads, each with its own engine, search at once: different
 *      positions, modes and evaluators (the built-in ones, and every
 *      evaluator file named on the command line, as dumped by
 *      csrc/tests/dump_evaluators.py).  The threads are the first to touch
 *      the core, so they race into ckr_init (its tables are built once) and
 *      two of them share one rote memory.  Each result must equal the same
 *      search rerun alone afterwards.
 *   2. While those run: a thread stops a running search (it must return
 *      promptly); a stop sent after ckr_engine_arm but before the search
 *      begins ends that search at once; stops racing the start of a search
 *      are never lost; a stale stop (sent while idle, or naming an old
 *      ticket) never ends a later search.
 *   3. The endgame database of 2..3 pieces, values and distances, built on
 *      three threads (csrc/egdb.c's sweeps: shared dirty marks, values read
 *      while other threads settle them) equals the one built on one thread,
 *      and checks as consistent on three threads.
 *
 * Usage: tsan_check [evaluator files...]   Prints OK and exits 0 when clean. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../ckr.h"

/* ---- small helpers ---- */

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static atomic_int failures;

static void fail(const char *what)
{
    printf("FAIL: %s\n", what);
    fflush(stdout);
    atomic_fetch_add(&failures, 1);
}

/* Root positions as square sets: black men, black kings, white men, white kings, side. */
static const uint32_t ROOTS[][5] = {
    {0xFFFu, 0, 0xFFF00000u, 0, CKR_BLACK},                     /* the start */
    {0x1FEFu, 0, 0xFFE10000u, 0, CKR_WHITE},                    /* after 9-13 17-... */
    {0x2107u, 0x4000000u, 0xE0200000u, 0x20u, CKR_WHITE},       /* men and kings, later */
    {0x0000F00Fu, 0x00F00000u, 0x0F000000u, 0x000F0F00u, CKR_WHITE}, /* many kings */
};
#define NROOTS 4

static void root_pos(int r, ckr_pos *p)
{
    const uint32_t *s = ROOTS[r % NROOTS];
    ckr_pos_set(p, s[0], s[1], s[2], s[3], (int)s[4]);
}

/* An evaluator file of csrc/tests/dump_evaluators.py; data is malloc'ed. */
static int load_eval(const char *path, ckr_eval *ev)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int32_t head[2 + 64 + 32 + 32 + 1];
    int bad = fread(head, sizeof head, 1, f) != 1;
    memset(ev, 0, sizeof *ev);
    int32_t *data = NULL;
    if (!bad) {
        ev->kind = head[0];
        ev->nweights = head[1];
        memcpy(ev->weights, head + 2, sizeof ev->weights);
        memcpy(ev->man_table, head + 66, sizeof ev->man_table);
        memcpy(ev->king_table, head + 98, sizeof ev->king_table);
        ev->ndata = head[130];
        data = malloc(sizeof(int32_t) * (size_t)(ev->ndata ? ev->ndata : 1));
        bad = !data || (ev->ndata && fread(data, sizeof(int32_t), (size_t)ev->ndata, f) != (size_t)ev->ndata);
        ev->data = data;
    }
    fclose(f);
    if (bad) {
        free(data);
        ev->data = NULL;
        return -1;
    }
    return 0;
}

/* ---- 1. concurrent searches ---- */

typedef struct result {
    int n, depth, score, pvlen;
    int64_t nodes;
    ckr_move best;
} result;

typedef struct job {
    const char *name;
    ckr_eval eval;
    int root, mode, depth;
    const ckr_rote *rote;
    result got;
} job;

static pthread_barrier_t start_line;

static void run_job(job *j, result *out)
{
    ckr_engine *e = ckr_engine_new(1); /* the first call into the core: ckr_init races here */
    ckr_pos p;
    root_pos(j->root, &p);
    ckr_engine_set_eval(e, &j->eval);
    ckr_engine_set_rote(e, j->rote);
    ckr_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.mode = j->mode;
    lim.depth = j->depth;
    lim.game_ply = 20 + j->root;
    lim.has_parent = 1; /* a stand-in parent: the learners' evaluators read one */
    lim.parent = p;
    lim.parent.side ^= 1;
    ckr_info info;
    memset(out, 0, sizeof *out);
    out->n = ckr_search(e, &p, NULL, 0, &lim, &info);
    out->depth = info.depth;
    out->score = info.score;
    out->pvlen = info.pvlen;
    out->nodes = info.nodes;
    if (info.pvlen > 0)
        out->best = info.pv[0];
    ckr_engine_free(e);
}

static void *job_thread(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(&start_line);
    run_job(j, &j->got);
    return NULL;
}

/* A rote memory the searches share: every position two plies from the start. */
static ckr_rote *shared_rote(void)
{
    ckr_rote *r = ckr_rote_new(1024);
    ckr_pos p, q;
    ckr_move m1[CKR_MAX_MOVES], m2[CKR_MAX_MOVES];
    root_pos(0, &p);
    int n1 = ckr_gen_moves(&p, m1);
    for (int i = 0; i < n1; i++) {
        q = p;
        ckr_make(&q, &m1[i]);
        int n2 = ckr_gen_moves(&q, m2);
        for (int k = 0; k < n2; k++) {
            ckr_pos t = q;
            ckr_make(&t, &m2[k]);
            ckr_rote_key key;
            ckr_rote_key_of(&t, &key);
            ckr_rote_put(r, &key, (i * 7 + k * 3) % 40 - 20, 4);
        }
    }
    return r;
}

/* ---- 2. stopping ---- */

typedef struct stopper {
    ckr_engine *e;
    atomic_int reports;     /* info callbacks seen: the search is under way */
    int64_t stop_sent_ms;
    ckr_info info;
    int n;
    int64_t returned_ms;
    ckr_limits lim;
    ckr_pos pos;
} stopper;

static void on_info(void *userdata, const ckr_info *info)
{
    stopper *s = userdata;
    (void)info;
    atomic_fetch_add(&s->reports, 1);
}

static void *search_thread(void *arg)
{
    stopper *s = arg;
    s->n = ckr_search(s->e, &s->pos, NULL, 0, &s->lim, &s->info);
    s->returned_ms = now_ms();
    return NULL;
}

/* An unlimited search; the hard limit only ends the run if a stop was lost. */
static void unlimited(stopper *s, ckr_engine *e, int root)
{
    memset(s, 0, sizeof *s);
    s->e = e;
    root_pos(root, &s->pos);
    s->lim.mode = CKR_MODE_PVS;
    s->lim.hard_ms = 60000;
}

/* A stop from another thread while the search runs. */
static void *stop_running(void *arg)
{
    stopper *s = arg;
    while (atomic_load(&s->reports) < 2)
        sleep_ms(1);
    sleep_ms(20);
    s->stop_sent_ms = now_ms();
    ckr_engine_stop(s->e);
    return NULL;
}

static void check_stop_while_running(void)
{
    stopper s;
    ckr_engine *e = ckr_engine_new(2);
    unlimited(&s, e, 1);
    ckr_engine_set_callback(e, on_info, &s);
    pthread_t a, b;
    pthread_create(&a, NULL, search_thread, &s);
    pthread_create(&b, NULL, stop_running, &s);
    pthread_join(b, NULL);
    pthread_join(a, NULL);
    int64_t lag = s.returned_ms - s.stop_sent_ms;
    printf("stop while running: depth %d nodes %lld, returned %lld ms after the stop\n", s.info.depth,
           (long long)s.info.nodes, (long long)lag);
    if (s.n < 1 || s.info.pvlen < 1 || s.info.depth < 1 || lag > 5000)
        fail("a stop while the search runs");
    ckr_engine_free(e);
}

static void *stop_engine(void *arg)
{
    ckr_engine_stop(arg);
    return NULL;
}

/* Armed, then stopped from another thread, then begun: it returns at once with
 * the first legal move; afterwards stale stops do not touch the next search. */
static void check_stop_before_start(void)
{
    stopper s;
    ckr_engine *e = ckr_engine_new(2);
    unlimited(&s, e, 0);
    uint64_t t = ckr_engine_arm(e);
    if (ckr_engine_arm(e) != t)
        fail("arming twice before a search gives two tickets");
    pthread_t a, b;
    pthread_create(&b, NULL, stop_engine, e);
    pthread_join(b, NULL);
    int64_t t0 = now_ms();
    pthread_create(&a, NULL, search_thread, &s);
    pthread_join(a, NULL);
    ckr_move first[CKR_MAX_MOVES];
    ckr_gen_moves(&s.pos, first);
    printf("stop before start: returned in %lld ms, depth %d, pv %d\n", (long long)(s.returned_ms - t0),
           s.info.depth, s.info.pvlen);
    if (s.n != 7 || s.info.depth != 0 || s.info.pvlen != 1 || memcmp(&s.info.pv[0], &first[0], sizeof first[0]) ||
        s.returned_ms - t0 > 5000)
        fail("a stop after arming and before the search began");

    /* Stale stops: while idle, and naming the old ticket during the next search. */
    ckr_engine_stop(e);
    ckr_engine_stop_search(e, t);
    memset(&s.lim, 0, sizeof s.lim);
    s.lim.mode = CKR_MODE_PVS;
    s.lim.depth = 6;
    uint64_t next = ckr_engine_arm(e);
    ckr_engine_stop_search(e, t);
    ckr_engine_stop_search(e, next + 1); /* not handed out yet: ignored */
    pthread_create(&a, NULL, search_thread, &s);
    for (int i = 0; i < 50; i++) {
        ckr_engine_stop_search(e, t);
        sleep_ms(1);
    }
    pthread_join(a, NULL);
    printf("stale stops: ticket %llu then %llu, next search reached depth %d\n", (unsigned long long)t,
           (unsigned long long)next, s.info.depth);
    if (next <= t || s.info.depth != 6)
        fail("a stale stop ended a later search");
    ckr_engine_free(e);
}

typedef struct racer {
    ckr_engine *e;
    uint64_t ticket;
    pthread_barrier_t *go;
} racer;

static void *stop_ticket(void *arg)
{
    racer *r = arg;
    pthread_barrier_wait(r->go);
    ckr_engine_stop_search(r->e, r->ticket);
    return NULL;
}

/* The stop and the search start at the same moment: never lost. */
static void check_stop_racing_start(void)
{
    ckr_engine *e = ckr_engine_new(1);
    int64_t worst = 0;
    for (int i = 0; i < 20; i++) {
        stopper s;
        unlimited(&s, e, i);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        racer r = {e, ckr_engine_arm(e), &go};
        pthread_t b;
        pthread_create(&b, NULL, stop_ticket, &r);
        pthread_barrier_wait(&go);
        int64_t t0 = now_ms();
        search_thread(&s); /* this thread searches while the other one stops */
        pthread_join(b, NULL);
        pthread_barrier_destroy(&go);
        if (s.returned_ms - t0 > worst)
            worst = s.returned_ms - t0;
        if (s.n < 1 || s.info.pvlen < 1)
            fail("a search stopped as it began gave no move");
    }
    printf("stops racing the start: 20 searches, the slowest returned in %lld ms\n", (long long)worst);
    if (worst > 5000)
        fail("a stop racing the start of a search was lost");
    ckr_engine_free(e);
}

static void *stop_checks(void *arg)
{
    (void)arg;
    check_stop_while_running();
    check_stop_before_start();
    check_stop_racing_start();
    return NULL;
}

/* Build 2..3 pieces on one thread and on three; every table must be the same bytes. */
static void check_egdb_threads(void)
{
    ckr_egdb *one = ckr_egdb_new(), *three = ckr_egdb_new();
    int sigs = 0;
    for (int total = 2; total <= 3; total++)
        for (int men = 0; men <= total; men++)
            for (int bm = 0; bm <= men; bm++)
                for (int bk = 0; bk <= total - men; bk++) {
                    int wm = men - bm, wk = total - men - bk;
                    if (!(bm + bk) || !(wm + wk))
                        continue;
                    sigs++;
                    if (ckr_egdb_build_threads(one, bm, bk, wm, wk, 1) < 1 ||
                        ckr_egdb_build_threads(three, bm, bk, wm, wk, 3) < 1 ||
                        ckr_egdb_build_distance_threads(one, bm, bk, wm, wk, 1) !=
                            ckr_egdb_build_distance_threads(three, bm, bk, wm, wk, 3))
                        fail("an endgame table was not built, or its distances differ in length");
                    int64_t n = ckr_egdb_size(bm, bk, wm, wk), nb = (n + 3) / 4;
                    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
                    for (int side = 0; side < 2; side++) {
                        ckr_egdb_get_data(one, bm, bk, wm, wk, side, a, nb);
                        ckr_egdb_get_data(three, bm, bk, wm, wk, side, b, nb);
                        if (memcmp(a, b, (size_t)nb))
                            fail("endgame values built on three threads differ from one thread's");
                        ckr_egdb_get_distance(one, bm, bk, wm, wk, side, a, n);
                        ckr_egdb_get_distance(three, bm, bk, wm, wk, side, b, n);
                        if (memcmp(a, b, (size_t)n))
                            fail("endgame distances built on three threads differ from one thread's");
                        int64_t c1[4], c3[4];
                        if (ckr_egdb_check_threads(three, bm, bk, wm, wk, side, c1, 1) != 0 ||
                            ckr_egdb_check_threads(three, bm, bk, wm, wk, side, c3, 3) != 0 || memcmp(c1, c3, sizeof c1) ||
                            ckr_egdb_check_distance_threads(three, bm, bk, wm, wk, side, 3) != 0)
                            fail("an endgame table checked on three threads is not consistent");
                    }
                    free(a);
                    free(b);
                }
    printf("endgame database: %d signatures of 2..3 pieces, the same on one thread and on three, consistent\n", sigs);
    ckr_egdb_free(one);
    ckr_egdb_free(three);
}

int main(int argc, char **argv)
{
    /* Nothing touches the core before the threads start. */
    enum { BUILTIN = 5 };
    int njobs = BUILTIN + (argc - 1);
    job *jobs = calloc((size_t)njobs, sizeof *jobs);
    static const char *names[BUILTIN] = {"default", "default", "material", "table", "linear"};
    for (int i = 0; i < BUILTIN; i++) {
        job *j = &jobs[i];
        j->name = names[i];
        j->eval.kind = i < 2 ? CKR_EVAL_DEFAULT : i == 2 ? CKR_EVAL_MATERIAL : i == 3 ? CKR_EVAL_TABLE : CKR_EVAL_LINEAR;
        for (int k = 0; k < 32; k++) {
            j->eval.man_table[k] = 100 + (k / 4) * 3;
            j->eval.king_table[k] = 140 + ((k % 4 == 1 || k % 4 == 2) ? 5 : 0);
        }
        j->eval.nweights = 13;
        for (int k = 0; k < 13; k++)
            j->eval.weights[k] = (k < 2 ? 120 : 5 - k % 7) * CKR_WEIGHT_ONE;
    }
    for (int i = 1; i < argc; i++) {
        job *j = &jobs[BUILTIN + i - 1];
        j->name = argv[i];
        if (load_eval(argv[i], &j->eval) != 0) {
            printf("bad evaluator file %s\n", argv[i]);
            return 1;
        }
    }
    for (int i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        j->root = i % NROOTS;
        j->mode = i % 7 == 3 ? CKR_MODE_SAMUEL : i % 7 == 4 ? CKR_MODE_SHANNON_A
                 : i % 7 == 5 ? CKR_MODE_FOGEL : i % 7 == 6 ? CKR_MODE_SHANNON_B : CKR_MODE_PVS;
        j->depth = j->mode == CKR_MODE_PVS ? 6 : 3;
    }

    pthread_barrier_init(&start_line, NULL, (unsigned)njobs + 1);
    pthread_t *threads = calloc((size_t)njobs, sizeof *threads);
    for (int i = 0; i < njobs; i++)
        pthread_create(&threads[i], NULL, job_thread, &jobs[i]);
    pthread_t stops;
    pthread_barrier_wait(&start_line);
    pthread_create(&stops, NULL, stop_checks, NULL);
    for (int i = 0; i < njobs; i++)
        pthread_join(threads[i], NULL);
    pthread_join(stops, NULL);

    /* The same searches again, now with a shared rote memory for two of them,
     * all at once; then each alone: the results must agree. */
    ckr_rote *rote = shared_rote();
    jobs[0].rote = jobs[1].rote = rote;
    jobs[1].root = 0;
    result *first = calloc((size_t)njobs, sizeof *first);
    for (int i = 0; i < njobs; i++)
        first[i] = jobs[i].got;
    pthread_barrier_destroy(&start_line);
    pthread_barrier_init(&start_line, NULL, (unsigned)njobs);
    for (int i = 0; i < njobs; i++)
        pthread_create(&threads[i], NULL, job_thread, &jobs[i]);
    for (int i = 0; i < njobs; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        result alone;
        run_job(j, &alone);
        int same = alone.n == j->got.n && alone.depth == j->got.depth && alone.score == j->got.score &&
                   alone.nodes == j->got.nodes && alone.pvlen == j->got.pvlen &&
                   !memcmp(&alone.best, &j->got.best, sizeof alone.best);
        if (i > 1) /* the rote jobs changed their setup between the rounds */
            same = same && first[i].nodes == alone.nodes && first[i].score == alone.score;
        const char *base = strrchr(j->name, '/');
        printf("%-24s%s root %d mode %d depth %d: %d moves, score %d, nodes %lld %s\n", base ? base + 1 : j->name,
               j->rote ? " +rote" : "      ", j->root, j->mode, alone.depth, alone.n, alone.score,
               (long long)alone.nodes, same ? "(same alone and concurrent)" : "DIFFERS");
        if (!same || alone.n < 1 || alone.pvlen < 1)
            fail("a concurrent search differs from the same search alone");
    }
    if (ckr_rote_used(rote, NULL, 0) < 1)
        fail("the shared rote memory was not probed");
    ckr_rote_free(rote);
    pthread_barrier_destroy(&start_line);
    for (int i = BUILTIN; i < njobs; i++)
        free((void *)jobs[i].eval.data);
    free(first);
    free(threads);
    free(jobs);
    check_egdb_threads();
    int bad = atomic_load(&failures);
    printf(bad ? "FAILED\n" : "OK\n");
    return bad != 0;
}
