/* phase_tables.c -- Griffith's move-phase tables (CKR_EVAL_PHASE).
 *
 * Griffith (1974, section 7) scores a position by the move that brought it
 * about and the phase of the game: for each of 6 phases (moves 1-10, 11-20,
 * 21-30, 31-40, 41-50, 51 on; a "move" is one player's move, i.e. a ply) a
 * table gives, for each move (origin, destination), the fraction of the times
 * that move was available in book games that the expert played it.  Squares
 * are the mover's own relative squares (Black's as they are, White's s ->
 * 33 - s), so both colours share the tables: Griffith's 98 entries are the 49
 * forward and 49 backward single steps.  We also keep entries for jumps, by
 * their start and final landing square, since a capture position has only
 * jumps to choose from.  The trainer is engine/learners/move_phase.py.
 *
 * Data layout (int32, eval->data):
 *   data[0]  PHASE_VERSION (1)
 *   data[1]  scale: centi-men for a table value of 1.0 (entries are in
 *            1/10000), so the positional part is -entry * scale / 10000
 *   data[2]  material weight: 1 adds the engine's material score (Samuel's
 *            piece advantage, kings 3 : men 2), 0 leaves it out
 *   data[3]  number of phases (6)
 *   data[4]  plies per phase (10)
 *   data[5..7] reserved (0)
 *   data[8 + phase * 1024 + (from - 1) * 32 + (to - 1)]  the entry of the move
 *            from relative square `from` to relative square `to` in `phase`
 *            (0 .. 10000; never-seen moves hold the trainer's prior)
 *
 * The score is for the side to move at pos, which did NOT make the last move,
 * so it gets minus the mover's entry (plus material).  The phase of the last
 * move: it was ply game_ply - 1 (0-based) of the game, so phase =
 * min((game_ply - 1) / plies_per_phase, phases - 1).
 *
 * Fallbacks (the positional part is then 0, material still counts): no
 * parent; a parent that is not one move before pos (side to move unchanged,
 * or not exactly one piece of the mover left one square and arrived on
 * another -- a king's capture that returns to its own square has no
 * (from, to) entry); data missing or too short.
 */
#include "bitboard.h"

#define PHASE_VERSION 1
#define PHASE_HEADER 8
#define PHASE_SQUARES 32

int ckr_phase_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply)
{
    const int32_t *d = eval->data;
    int64_t n = eval->ndata;
    int material = 0;
    if (d && n >= PHASE_HEADER && d[2])
        material = d[2] * bb_material_score(pos);
    if (!d || n < PHASE_HEADER || d[0] != PHASE_VERSION || !parent || parent->side == pos->side)
        return material;
    int phases = d[3], per = d[4];
    if (phases < 1 || per < 1 || n < PHASE_HEADER + (int64_t)phases * PHASE_SQUARES * PHASE_SQUARES)
        return material;
    int mover = parent->side;
    ckr_bb before = parent->pieces[mover], after = pos->pieces[mover];
    ckr_bb gone = before & ~after, came = after & ~before;
    if (bb_popcount(gone) != 1 || bb_popcount(came) != 1)
        return material;
    int from = bb_rel_square(bb_lsb(gone), mover), to = bb_rel_square(bb_lsb(came), mover);
    if (!from || !to)
        return material;
    int phase = game_ply > 0 ? (game_ply - 1) / per : 0;
    if (phase > phases - 1)
        phase = phases - 1;
    int64_t entry = d[PHASE_HEADER + ((int64_t)phase * PHASE_SQUARES + (from - 1)) * PHASE_SQUARES + (to - 1)];
    return material - (int)(entry * d[1] / 10000);
}
