/* heuristic_eval.c -- Griffith's four-rule heuristic evaluator (CKR_EVAL_HEURISTIC).
 *
 * Griffith (1974, section 8) scores a position by the move that led to it:
 *   (1) "highest priority to moving a king";
 *   (2) "second highest priority to moves along the main diagonal and into
 *       the central two squares";
 *   (3) "lowest priority to moves leading to jumps and moves out of the third
 *       from the left and second from the right squares of the first row";
 *   (4) "third priority to all other types of moves".
 * Our reading of each rule (squares are the mover's relative squares: Black's
 * as they are, White's s -> 33 - s):
 *   (1) the moving piece was a king (before the move).
 *   (2) "along the main diagonal": the move starts and ends on the long
 *       diagonal 4-8-11-15-18-22-25-29 (the diagonal of his footnote 8, from
 *       the single corner; it is the same squares for both colours).  "into
 *       the central two squares": the move ends on a square of a configurable
 *       set, by default the four centre squares 14, 15, 18, 19 (the paper does
 *       not say which two; the alternatives 14/15 and 18/19 are variants the
 *       trainer may pick).  Griffith's summary (section 9) also credits moves
 *       "into the kingrow", so by default a man that crowns counts too (flag).
 *   (3) "leading to jumps": after the move the opponent has a capture.  "out
 *       of the third from the left and second from the right squares of the
 *       first row": counting all eight squares of the mover's back row from
 *       its own side, the third from the left is relative square 3 and the
 *       second from the right is relative square 1 -- the "bridge", which
 *       matches the summary's "evacuate two of the four squares on the first
 *       row".  So: the move starts on relative square 1 or 3.
 *   (4) everything else.
 * When rules overlap the paper gives no order; the precedence is a setting:
 *   0 "listed": (1), then (2), then (3), then (4)  [the order of the list]
 *   1 "caution": (1), then (3), then (2), then (4)
 *   2 "caution-all": (3), then (1), then (2), then (4)
 * The priority levels are 4 (rule 1), 3 (rule 2), 2 (rule 4), 1 (rule 3).
 * Griffith gives each level a band of random scores (0.9-1.0, 0.8-0.9, ...);
 * the evaluator returns the level, and the agreement measurement breaks the
 * ties inside a level with seeded random offsets (engine/agreement.py).
 *
 * Data layout (int32, eval->data):
 *   data[0]  HEURISTIC_VERSION (1)
 *   data[1]  scale: centi-men per priority level
 *   data[2]  material weight: 1 adds the engine's material score, 0 none
 *   data[3]  precedence (0, 1, 2 as above)
 *   data[4]  rule-2 target squares: bit s-1 for relative square s
 *   data[5]  flags: bit 0 = crowning moves count under rule 2
 *   data[6..7] reserved (0)
 * Without data the defaults are used (scale 10, material 1, precedence 0,
 * centre 14/15/18/19, crowning counts).
 *
 * The score is for the side to move at pos, which did not make the last move:
 * material minus level * scale.  With no parent (or a parent that is not one
 * move before pos) the positional part is 0.  A king's capture that returns to
 * its own square (the mover's pieces unchanged) is still a king move.
 */
#include "bitboard.h"

#define HEURISTIC_VERSION 1
#define HEURISTIC_HEADER 8
#define MAIN_DIAGONAL_SQUARES ((1u << 3) | (1u << 7) | (1u << 10) | (1u << 14) | (1u << 17) | (1u << 21) \
                               | (1u << 24) | (1u << 28))
#define CENTRE_DEFAULT ((1u << 13) | (1u << 14) | (1u << 17) | (1u << 18))
#define BRIDGE_SQUARES ((1u << 0) | (1u << 2))

static int in_set(uint32_t set, int rel_sq) { return rel_sq > 0 && ((set >> (rel_sq - 1)) & 1); }

int ckr_heuristic_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    const int32_t *d = eval->data;
    int ok = d && eval->ndata >= HEURISTIC_HEADER && d[0] == HEURISTIC_VERSION;
    int scale = ok ? d[1] : 10, mat_w = ok ? d[2] : 1, precedence = ok ? d[3] : 0;
    uint32_t centre = ok ? (uint32_t)d[4] : CENTRE_DEFAULT;
    int crown_counts = ok ? (d[5] & 1) : 1;
    int material = mat_w ? mat_w * bb_material_score(pos) : 0;
    if (!parent || parent->side == pos->side)
        return material;

    int mover = parent->side;
    ckr_bb before = parent->pieces[mover], after = pos->pieces[mover];
    ckr_bb gone = before & ~after, came = after & ~before;
    int king, from = 0, to = 0, crowned = 0;
    if (!gone && !came) {
        /* The mover's pieces did not change: a king's round-trip capture. */
        if (pos->pieces[mover ^ 1] == parent->pieces[mover ^ 1])
            return material;
        king = 1;
    } else if (bb_popcount(gone) == 1 && bb_popcount(came) == 1) {
        king = (int)((parent->kings & gone) != 0);
        crowned = !king && (pos->kings & came) != 0;
        from = bb_rel_square(bb_lsb(gone), mover);
        to = bb_rel_square(bb_lsb(came), mover);
    } else {
        return material;
    }

    int good = (in_set(MAIN_DIAGONAL_SQUARES, from) && in_set(MAIN_DIAGONAL_SQUARES, to))
               || in_set(centre, to) || (crown_counts && crowned);
    int bad = ckr_has_capture(pos) || in_set(BRIDGE_SQUARES, from);
    int level;
    if (precedence == 2 && bad)
        level = 1;
    else if (king)
        level = 4;
    else if (precedence == 1 && bad)
        level = 1;
    else if (good)
        level = 3;
    else if (bad)
        level = 1;
    else
        level = 2;
    return material - level * scale;
}
