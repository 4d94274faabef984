/* engine.c -- an engine's lifetime and settings: table size, evaluator,
 * rote memory, endgame database, callback, and its stop tickets. */
#include "search.h"

ckr_engine *ckr_engine_new(int hash_mb)
{
    ckr_init();
    ckr_engine *e = calloc(1, sizeof *e);
    if (!e)
        return 0;
    e->eval.kind = CKR_EVAL_DEFAULT;
    e->kind = ckr_eval_kind_of(CKR_EVAL_DEFAULT);
    stop_init(&e->stop);
    if (tt_resize(&e->tt, hash_mb) != 0) {
        free(e);
        return 0;
    }
    return e;
}

void ckr_engine_free(ckr_engine *e)
{
    if (!e)
        return;
    ckr_piecenet_fast_free(e->net);
    free(e->net_cache);
    tt_release(&e->tt);
    free(e);
}

int ckr_engine_set_hash(ckr_engine *e, int hash_mb) { return tt_resize(&e->tt, hash_mb); }

void ckr_engine_prepare(ckr_engine *e) { tt_prepare(&e->tt); }

void ckr_engine_clear(ckr_engine *e)
{
    tt_clear(&e->tt);
    memset(e->history, 0, sizeof e->history);
    memset(e->killers, 0, sizeof e->killers);
}

void ckr_engine_set_eval(ckr_engine *e, const ckr_eval *eval)
{
    e->eval = *eval;
    e->kind = ckr_eval_kind_of(eval->kind);
    ckr_piecenet_fast_free(e->net);
    free(e->net_cache);
    e->net_cache = NULL;
    e->net = e->kind->packed ? ckr_piecenet_fast_new(eval) : NULL;
    if (e->net) {
        e->net_cache = calloc(EVAL_CACHE_SIZE, sizeof *e->net_cache);
        if (!e->net_cache) { /* the network then runs uncached through the reference */
            ckr_piecenet_fast_free(e->net);
            e->net = NULL;
        }
    }
}

void ckr_engine_set_rote(ckr_engine *e, const ckr_rote *rote) { e->rote = rote; }

void ckr_engine_set_egdb(ckr_engine *e, const ckr_egdb *db, int max_pieces)
{
    e->egdb = max_pieces >= 2 ? db : NULL;
    e->egdb_pieces = db ? max_pieces : 0;
}

void ckr_engine_set_callback(ckr_engine *e, ckr_info_fn fn, void *userdata)
{
    e->callback = fn;
    e->userdata = userdata;
}

uint64_t ckr_engine_arm(ckr_engine *e) { return stop_arm(&e->stop); }

void ckr_engine_stop(ckr_engine *e) { stop_all(&e->stop); }

void ckr_engine_stop_search(ckr_engine *e, uint64_t ticket) { stop_ticket(&e->stop, ticket); }
