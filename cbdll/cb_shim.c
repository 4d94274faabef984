/* cb_shim.c -- see cb_shim.h.  Plain C99, no allocation, no I/O. */
#include "cb_shim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cbs_square_coords(int n, int *x, int *y)
{
    if (n < 1 || n > 32)
        return -1;
    int k = n - 1;
    *y = k / 4;
    *x = 2 * (3 - k % 4) + (*y & 1);
    return 0;
}

int cbs_coords_square(int x, int y)
{
    if (x < 0 || x > 7 || y < 0 || y > 7 || ((x + y) & 1))
        return 0; /* dark squares have x + y even: (6,0), (7,1), ... */
    return 4 * (y + 1) - x / 2;
}

static int append(char *out, size_t size, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 1 > size)
        return -1;
    memcpy(out + *len, text, n + 1);
    *len += n;
    return 0;
}

static int append_side(const int board[8][8], int colour, char *out, size_t size, size_t *len)
{
    int first = 1;
    for (int n = 1; n <= 32; n++) {
        int x, y;
        cbs_square_coords(n, &x, &y);
        int piece = board[x][y];
        if (!(piece & colour))
            continue;
        char item[16];
        snprintf(item, sizeof item, "%s%s%d", first ? "" : ",", (piece & CB_KING) ? "K" : "", n);
        if (append(out, size, len, item) != 0)
            return -1;
        first = 0;
    }
    return 0;
}

int cbs_board_to_fen(const int board[8][8], int color, char *out, size_t size)
{
    if (color != CB_BLACK && color != CB_WHITE)
        return -1;
    for (int x = 0; x < 8; x++)
        for (int y = 0; y < 8; y++) {
            int piece = board[x][y];
            if (piece == CB_FREE)
                continue;
            /* one colour and one kind: 5, 6, 9 or 10 */
            int colour = piece & (CB_WHITE | CB_BLACK), kind = piece & (CB_MAN | CB_KING);
            if ((piece & ~15) || colour == 0 || colour == (CB_WHITE | CB_BLACK) || kind == 0 ||
                kind == (CB_MAN | CB_KING) || cbs_coords_square(x, y) == 0)
                return -1;
        }
    size_t len = 0;
    if (size == 0)
        return -1;
    out[0] = '\0';
    if (append(out, size, &len, color == CB_BLACK ? "B:W" : "W:W") != 0 ||
        append_side(board, CB_WHITE, out, size, &len) != 0 || append(out, size, &len, ":B") != 0 ||
        append_side(board, CB_BLACK, out, size, &len) != 0)
        return -1;
    return (int)len;
}

/* One square number 1..32 at *p; advances p. */
static int read_square(const char **p)
{
    const char *s = *p;
    int n = 0, digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 3) {
        n = n * 10 + (*s - '0');
        s++;
        digits++;
    }
    if (digits == 0 || n < 1 || n > 32)
        return -1;
    *p = s;
    return n;
}

int cbs_fen_to_board(const char *fen, int board[8][8], int *color)
{
    int b[8][8] = {{0}}, side;
    const char *p = fen;
    if (*p == 'B')
        side = CB_BLACK;
    else if (*p == 'W')
        side = CB_WHITE;
    else
        return -1;
    p++;
    int seen_w = 0, seen_b = 0;
    while (*p == ':') {
        p++;
        int colour;
        if (*p == 'W' && !seen_w)
            colour = CB_WHITE, seen_w = 1;
        else if (*p == 'B' && !seen_b)
            colour = CB_BLACK, seen_b = 1;
        else
            return -1;
        p++;
        while (*p && *p != ':' && *p != '.') {
            int king = 0;
            if (*p == 'K') {
                king = 1;
                p++;
            }
            int lo = read_square(&p), hi = lo;
            if (lo < 0)
                return -1;
            if (*p == '-') {
                p++;
                hi = read_square(&p);
                if (hi < lo)
                    return -1;
            }
            for (int n = lo; n <= hi; n++) {
                int x = 0, y = 0;
                cbs_square_coords(n, &x, &y);
                if (b[x][y] != CB_FREE)
                    return -1; /* a square given twice */
                b[x][y] = colour | (king ? CB_KING : CB_MAN);
            }
            if (*p == ',')
                p++;
            else if (*p && *p != ':' && *p != '.')
                return -1;
        }
    }
    if (*p == '.')
        p++;
    if (*p != '\0' || !seen_w || !seen_b)
        return -1;
    memcpy(board, b, sizeof b);
    *color = side;
    return 0;
}

size_t cbs_unescape(const char *in, char *out, size_t size)
{
    size_t len = 0;
    if (size == 0)
        return 0;
    for (const char *s = in; *s && len + 1 < size; s++) {
        char c = *s;
        if (c == '\\' && s[1]) {
            s++;
            c = *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
        }
        out[len++] = c;
    }
    out[len] = '\0';
    return len;
}

int cbs_format_command(const char *command, char *out, size_t size)
{
    static const char head[] = "enginecommand ";
    size_t n = strlen(command), len = sizeof head - 1;
    if (len + n + 2 > size)
        return -1;
    memcpy(out, head, len);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)command[i];
        out[len++] = (c < 32 || c == 127) ? ' ' : (char)c;
    }
    out[len++] = '\n';
    out[len] = '\0';
    return (int)len;
}

size_t cbs_command_line_size(const char *command)
{
    return sizeof "enginecommand " + strlen(command) + 1; /* the head, the text, the newline and the NUL */
}

/* The next word of *s (spaces and tabs between words), its length in *len; NULL at the end. */
static const char *next_word(const char **s, size_t *len)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    const char *start = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    *len = (size_t)(p - start);
    *s = p;
    return start;
}

static int word_is(const char *w, size_t len, const char *text)
{
    return w && len == strlen(text) && memcmp(w, text, len) == 0;
}

int cbs_command_is(const char *command, const char *verb)
{
    size_t len = 0;
    const char *w = next_word(&command, &len);
    return word_is(w, len, verb);
}

size_t cbs_reply_size(const char *command)
{
    if (cbs_command_is(command, "about") || cbs_command_is(command, "staticevaluation"))
        return CB_REPLY_SIZE;
    return CB_SHORT_REPLY_SIZE;
}

int cbs_is_movelist_probe(const char *command)
{
    static const char *const probe[] = {"get", "movelist", "B:W1:B"};
    size_t len = 0;
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        const char *w = next_word(&command, &len);
        if (!word_is(w, len, probe[i]))
            return 0;
    }
    return next_word(&command, &len) == NULL;
}

int cbs_format_getmove(const char *fen, double maxtime, int info, int moreinfo, char *out, size_t size)
{
    if (!(maxtime >= 0) || maxtime > 1e6)
        maxtime = maxtime > 1e6 ? 1e6 : 0; /* NaN and negatives: 0, the server then names the fault */
    int n = snprintf(out, size, "getmove %s %.6f %d %d\n", fen, maxtime, info, moreinfo);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* The next space-separated word of *s (cut off in place), or NULL. */
static char *word(char **s)
{
    char *p = *s;
    while (*p == ' ')
        p++;
    if (!*p)
        return NULL;
    char *start = p;
    while (*p && *p != ' ')
        p++;
    if (*p)
        *p++ = '\0';
    *s = p;
    return start;
}

static int result_code(const char *w)
{
    if (!strcmp(w, "WIN"))
        return CB_WIN;
    if (!strcmp(w, "LOSS"))
        return CB_LOSS;
    if (!strcmp(w, "DRAW"))
        return CB_DRAW;
    if (!strcmp(w, "UNKNOWN"))
        return CB_UNKNOWN;
    return -1;
}

int cbs_parse_line(char *line, cbs_line *out)
{
    memset(out, 0, sizeof *out);
    out->text = "";
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    char *rest = line, *head = word(&rest);
    if (!head)
        return out->kind = CBS_LINE_OTHER;
    while (*rest == ' ')
        rest++;
    if (!strcmp(head, "pong"))
        return out->kind = CBS_LINE_PONG;
    if (!strcmp(head, "status")) {
        out->text = rest;
        return out->kind = CBS_LINE_STATUS;
    }
    if (!strcmp(head, "reply")) {
        char *h = word(&rest);
        if (!h || (strcmp(h, "0") && strcmp(h, "1")))
            return out->kind = CBS_LINE_OTHER;
        while (*rest == ' ')
            rest++;
        out->handled = h[0] - '0';
        out->text = rest;
        return out->kind = CBS_LINE_REPLY;
    }
    if (!strcmp(head, "move")) {
        char *m = word(&rest), *r = word(&rest), *f = word(&rest);
        if (!m || !r || !f || result_code(r) < 0)
            return out->kind = CBS_LINE_OTHER;
        while (*rest == ' ')
            rest++;
        out->move = m;
        out->result = result_code(r);
        out->fen = f;
        out->text = rest;
        return out->kind = CBS_LINE_MOVE;
    }
    if (!strcmp(head, "error")) {
        /* error message="..." with \" and \\ escaped: keep the inside, still escaped */
        static const char key[] = "message=\"";
        if (strncmp(rest, key, sizeof key - 1) != 0)
            return out->kind = CBS_LINE_OTHER;
        char *text = rest + sizeof key - 1;
        size_t len = strlen(text);
        if (len == 0 || text[len - 1] != '"')
            return out->kind = CBS_LINE_OTHER;
        text[len - 1] = '\0';
        out->text = text;
        return out->kind = CBS_LINE_ERROR;
    }
    return out->kind = CBS_LINE_OTHER;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* The next `key = value` line of an ini text from *p on, taken apart in line (blank lines, [section]
 * headers, lines starting with ; or #, and lines without = skipped); 1 with key and value trimmed,
 * 0 at the end of the text.  A line longer than line is cut. */
static int next_ini_pair(const char **p, char *line, size_t size, char **key, char **value)
{
    while (**p) {
        size_t n = strcspn(*p, "\n");
        size_t keep = n < size - 1 ? n : size - 1;
        memcpy(line, *p, keep);
        line[keep] = '\0';
        *p += n + ((*p)[n] == '\n');
        char *s = trim(line);
        if (!*s || *s == ';' || *s == '#' || *s == '[')
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = '\0';
        *key = trim(s);
        *value = trim(eq + 1);
        return 1;
    }
    return 0;
}

int cbs_parse_ini(const char *text, char *host, size_t host_size, int *port)
{
    char line[512], *key, *value;
    const char *p = text;
    while (next_ini_pair(&p, line, sizeof line, &key, &value)) {
        if (!strcmp(key, "host")) {
            if (!*value || strlen(value) + 1 > host_size)
                return -1;
            strcpy(host, value);
        } else if (!strcmp(key, "port")) {
            char *end;
            long v = strtol(value, &end, 10);
            if (end == value || *end || v < 1 || v > 65535)
                return -1;
            *port = (int)v;
        }
    }
    return 0;
}

int cbs_ini_option(const char *text, int index, char *out, size_t size)
{
    char line[512], *key, *value;
    const char *p = text;
    int seen = 0;
    while (next_ini_pair(&p, line, sizeof line, &key, &value)) {
        for (char *k = key; *k; k++)
            *k = (char)tolower((unsigned char)*k);
        if (!strcmp(key, "host") || !strcmp(key, "port"))
            continue;
        if (seen++ < index)
            continue;
        if (!*key || !*value)
            return -1;
        int len = snprintf(out, size, "set %s %s", key, value);
        return len < 0 || (size_t)len >= size ? -1 : len;
    }
    return 0;
}
