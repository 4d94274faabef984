/*
 * cb_shim.h -- the portable core of samuel.dll, CheckerBoard's engine API
 * forwarded to `samuel serve` over the cb dialect (docs/protocols/cb.md).
 *
 * Nothing here touches a socket, a thread or Windows: board and FEN
 * conversion, the lines the DLL writes and the lines it reads, the ini file.
 * It is compiled into the DLL (mingw-w64) and, natively, into the library
 * tests/test_cbdll_core.py checks against the Python engine.
 *
 * Board and colour constants are CheckerBoard's (cb_interface.h): board[x][y],
 * y = 0 is Black's back rank (squares 1..4), square n (1..32) at
 *   y = (n-1) / 4,  x = 2 * (3 - (n-1) % 4) + (y odd),
 * so square 1 = (6,0), 4 = (0,0), 5 = (7,1), 29 = (7,7), 32 = (1,7).
 */
#ifndef CB_SHIM_H
#define CB_SHIM_H

#include <stddef.h>

#define CB_FREE 0
#define CB_WHITE 1
#define CB_BLACK 2
#define CB_MAN 4
#define CB_KING 8

#define CB_DRAW 0
#define CB_WIN 1
#define CB_LOSS 2
#define CB_UNKNOWN 3

#define CB_RESET_MOVES 1
#define CB_EXACT_TIME 2
#define CB_INCR_TIME_SHIFT 2

#define CB_REPLY_SIZE 1024      /* getmove's str, and enginecommand's reply for about and staticevaluation */
#define CB_SHORT_REPLY_SIZE 256 /* enginecommand's reply for everything else (CheckerBoard's dialogs) */
#define CB_COMMAND_SIZE 256     /* enginecommand's command as declared (set gamehist sends more) */
#define CBS_FEN_SIZE 128    /* "B:W" + 32 squares as "K32," + ":B" fits with room */
#define CBS_DEFAULT_HOST "127.0.0.1"
#define CBS_DEFAULT_PORT 27532

/* Square n (1..32) to board[x][y]; 0, or -1 for n out of range. */
int cbs_square_coords(int n, int *x, int *y);
/* board[x][y] to its square 1..32, or 0 for a light square or off the board. */
int cbs_coords_square(int x, int y);

/* CheckerBoard's position as a cb-dialect FEN ("B:W21,...:B1,...,K9").
 * Returns the length, or -1 for a piece code that is not CheckerBoard's on a
 * dark square, a piece on a light square, a colour that is not CB_BLACK or
 * CB_WHITE, or too small a buffer. */
int cbs_board_to_fen(const int board[8][8], int color, char *out, size_t size);

/* A FEN as samuel writes it (also with ranges, "B:W21-32:B1-12", either colour
 * group first) into board and the side to move; 0, or -1 when malformed
 * (board and color are then left unchanged). */
int cbs_fen_to_board(const char *fen, int board[8][8], int *color);

/* The cb dialect's `\\`, `\n`, `\r` escapes undone, into out (always ended by
 * NUL, cut to size).  Returns the length written. */
size_t cbs_unescape(const char *in, char *out, size_t size);

/* The line for enginecommand(command): "enginecommand <text>\n", line breaks
 * and other control characters in the text turned into spaces (the dialect is
 * one line per command).  Returns the length, or -1 when it does not fit. */
int cbs_format_command(const char *command, char *out, size_t size);
/* The buffer cbs_format_command needs for command, whatever its length. */
size_t cbs_command_line_size(const char *command);

/* 1 when command's first word is verb ("about" for " about"), else 0. */
int cbs_command_is(const char *command, const char *verb);

/* How many bytes of enginecommand's reply buffer may be written for command
 * (with the NUL): CheckerBoard passes its 1,024-byte buffer only for `about`
 * and `staticevaluation`, 256 or 260 bytes from its dialogs and name look-ups. */
size_t cbs_reply_size(const char *command);

/* 1 for CheckerBoard's probe "get movelist B:W1:B" (a side to move without
 * pieces), which an English engine declines so that CheckerBoard generates
 * English moves itself; 0 for anything else. */
int cbs_is_movelist_probe(const char *command);

/* The line for getmove(): "getmove <fen> <maxtime> <info> <moreinfo>\n". */
int cbs_format_getmove(const char *fen, double maxtime, int info, int moreinfo, char *out, size_t size);

/* A line from the server (without its newline), taken apart in place. */
enum { CBS_LINE_OTHER, CBS_LINE_REPLY, CBS_LINE_STATUS, CBS_LINE_MOVE, CBS_LINE_ERROR, CBS_LINE_PONG };
typedef struct cbs_line {
    int kind;
    int handled;      /* reply: the API's int return (0 or 1) */
    int result;       /* move: CB_WIN / CB_LOSS / CB_DRAW / CB_UNKNOWN */
    const char *move; /* move: the move in PDN */
    const char *fen;  /* move: the position after it */
    const char *text; /* reply and status: the (escaped) text; move: the last status; error: the message */
} cbs_line;
/* Returns the kind; a reply, move or error line that is malformed is OTHER. */
int cbs_parse_line(char *line, cbs_line *out);

/* The ini file next to the DLL: `host = ...` and `port = ...` lines (a
 * [section] header, blank lines, and lines starting with ; or # are skipped).
 * host and port keep their values when the text does not set them; -1 when
 * a port is not 1..65535 or the host does not fit. */
int cbs_parse_ini(const char *text, char *host, size_t host_size, int *port);

/* The engine options in the ini: its index-th `key = value` line (from 0, in
 * file order) other than host and port, as the cb command "set key value",
 * which the DLL sends on connecting, so the server checks every option against
 * its one table (engine/options.py) and refuses a bad one by name.  The same
 * lines are skipped as by cbs_parse_ini; the key is lowercased, the value kept
 * as written (a folder may hold spaces).  Returns the command's length, 0 when
 * there is no index-th option line, -1 when it does not fit in out (or a line
 * has an empty key or value). */
int cbs_ini_option(const char *text, int index, char *out, size_t size);

#endif
