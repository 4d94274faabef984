/*
 * samuel_dll.c -- samuel.dll, a CheckerBoard engine that forwards getmove()
 * and enginecommand() to a running `samuel serve` over the cb dialect
 * (docs/protocols/cb.md).  Windows only; built by scripts/build-cbdll with
 * mingw-w64, for x86-64 and for i686 (stdcall, undecorated export names).
 * The conversions and the line formats are in cb_shim.c.
 *
 * One TCP connection per loaded DLL, so the options CheckerBoard sets
 * (hashsize, book, ...) belong to the session its searches run in.  The DLL
 * holds no thread of its own: CheckerBoard unloads an engine with FreeLibrary
 * when the user picks another, and a thread left behind would run in unmapped
 * code once the server closed the connection.  Instead a call that waits reads
 * the socket itself, one caller at a time, and hands each line to whoever
 * waits for it: `status` to getmove's status string, `move` to getmove, and
 * `reply`/`error`/`pong` to the oldest request waiting for an immediate
 * answer.  A getmove is followed by a `ping`: the `pong` says the search was
 * accepted, an `error` before it that it was refused.  So enginecommand is
 * answered while a search runs, and playnow is forwarded within a poll period
 * (10 ms).  What the server sent while no call waited (the idle timeout's
 * error, the end of the connection) is read at the next call before it sends
 * anything; DLL_PROCESS_DETACH closes the socket.
 *
 * The host and port come from samuel.ini next to the DLL (host = ..., port =
 * ...), 127.0.0.1:27532 without it.  Every other `key = value` line of the
 * ini is an engine option (contempt = 20, hash = 128, ...): on each new
 * connection the DLL sends it as the cb command `set key value`, so the
 * server checks it against its one option table; a refusal is shown in the
 * About box.  When the server is not there, every call
 * says so: enginecommand returns 0 with the reason, getmove leaves the board
 * as it was (CheckerBoard then plays no move) with the reason as its status.
 */
#define _WIN32_WINNT 0x0600
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_shim.h"

struct coor { int x; int y; };
struct CBmove {
    int jumps, newpiece, oldpiece;
    struct coor from, to, path[12], del[12];
    int delpiece[12];
};

#define POLL_MS 10
#define CONNECT_TIMEOUT_MS 2000
#define ANSWER_TIMEOUT_MS 10000
#define MAX_PENDING 16
#define LINE_MAX_BYTES 8192

enum { ANS_NONE, ANS_OK, ANS_ERROR, ANS_GONE };

/* A request waiting for its immediate answer: an enginecommand's reply, or getmove's ping. */
typedef struct pending {
    int state;                 /* ANS_* */
    int handled;
    char text[CB_REPLY_SIZE];  /* unescaped */
} pending;

static CRITICAL_SECTION lock;
static CONDITION_VARIABLE changed;
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static int initialised;
static SOCKET sock = INVALID_SOCKET;
/* The socket a caller is in select/recv on with the lock released (one caller at a time); when
 * that connection is dropped meanwhile, the reader closes it (orphan), so that the handle cannot
 * be reused under it. */
static SOCKET reading = INVALID_SOCKET;
static SOCKET orphan = INVALID_SOCKET;
/* The server's bytes not yet ended by a newline; the rest of an over-long line is skipped. */
static char inbuf[LINE_MAX_BYTES];
static size_t inlen;
static int skipping;
static pending *queue[MAX_PENDING];
static int queue_len;
/* the running getmove */
static int searching;
static int move_state;         /* ANS_* */
static char move_fen[CBS_FEN_SIZE], move_text[CB_REPLY_SIZE], move_pdn[64];
static int move_result;
static char status_text[CB_REPLY_SIZE];
static char where[300];        /* "host:port", for messages */
static char dll_dir[MAX_PATH];
static char ini_text[4096];    /* samuel.ini as last read: its engine options go to each new connection */
static char ini_note[CB_REPLY_SIZE]; /* the server's refusal of one of them, for the About box */

static void send_ini_options(void);

static BOOL CALLBACK init(PINIT_ONCE o, PVOID p, PVOID *c)
{
    (void)o; (void)p; (void)c;
    InitializeCriticalSection(&lock);
    InitializeConditionVariable(&changed);
    WSADATA w;
    WSAStartup(MAKEWORD(2, 2), &w);
    initialised = 1;
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
    if (reason == DLL_PROCESS_ATTACH) {
        DWORD n = GetModuleFileNameA(inst, dll_dir, sizeof dll_dir);
        while (n > 0 && dll_dir[n - 1] != '\\' && dll_dir[n - 1] != '/')
            n--;
        dll_dir[n] = '\0';
    } else if (reason == DLL_PROCESS_DETACH && reserved == NULL && initialised) {
        /* FreeLibrary (not the process ending): no call is running, as CheckerBoard unloads an
         * idle engine; the server sees the connection end.  WSACleanup is not allowed here. */
        if (sock != INVALID_SOCKET)
            closesocket(sock);
        if (orphan != INVALID_SOCKET)
            closesocket(orphan);
        sock = orphan = INVALID_SOCKET;
        DeleteCriticalSection(&lock);
    }
    return TRUE;
}

static void read_settings(char *host, size_t host_size, int *port)
{
    snprintf(host, host_size, "%s", CBS_DEFAULT_HOST);
    *port = CBS_DEFAULT_PORT;
    char path[MAX_PATH + 16];
    char *text = ini_text;
    text[0] = '\0';
    snprintf(path, sizeof path, "%ssamuel.ini", dll_dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(text, 1, sizeof ini_text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (cbs_parse_ini(text, host, host_size, port) != 0) { /* a bad file: the defaults, said in messages */
        snprintf(host, host_size, "%s", CBS_DEFAULT_HOST);
        *port = CBS_DEFAULT_PORT;
    }
}

/* Every waiter learns the connection is gone (lock held). */
static void drop_connection(void)
{
    if (sock != INVALID_SOCKET) {
        if (reading == sock)
            orphan = sock;
        else
            closesocket(sock);
        sock = INVALID_SOCKET;
    }
    inlen = 0;
    skipping = 0;
    for (int i = 0; i < queue_len; i++)
        queue[i]->state = ANS_GONE;
    queue_len = 0;
    if (searching && move_state == ANS_NONE)
        move_state = ANS_GONE;
    WakeAllConditionVariable(&changed);
}

static pending *pop_front(void)
{
    if (queue_len == 0)
        return NULL;
    pending *p = queue[0];
    memmove(queue, queue + 1, (size_t)(queue_len - 1) * sizeof queue[0]);
    queue_len--;
    return p;
}

/* One line from the server to whoever waits for it (lock held). */
static void handle_line(char *line)
{
    cbs_line m;
    int kind = cbs_parse_line(line, &m);
    if (kind == CBS_LINE_STATUS) {
        cbs_unescape(m.text, status_text, sizeof status_text);
    } else if (kind == CBS_LINE_MOVE && searching) {
        snprintf(move_fen, sizeof move_fen, "%s", m.fen);
        snprintf(move_pdn, sizeof move_pdn, "%s", m.move);
        cbs_unescape(m.text, move_text, sizeof move_text);
        move_result = m.result;
        move_state = ANS_OK;
    } else if (kind == CBS_LINE_REPLY || kind == CBS_LINE_PONG || kind == CBS_LINE_ERROR) {
        pending *p = pop_front();
        if (p) {
            p->state = kind == CBS_LINE_ERROR ? ANS_ERROR : ANS_OK;
            p->handled = kind == CBS_LINE_REPLY ? m.handled : 0;
            cbs_unescape(m.text, p->text, sizeof p->text);
        } else if (kind == CBS_LINE_ERROR && searching && move_state == ANS_NONE) {
            cbs_unescape(m.text, move_text, sizeof move_text); /* the search itself failed */
            move_state = ANS_ERROR;
        }
    }
}

/* Bytes from the server, split into lines (lock held).  A line longer than the buffer keeps its
 * start (the reply is cut to CheckerBoard's buffer anyway) and loses the rest. */
static void feed(const char *data, int n)
{
    for (int i = 0; i < n; i++) {
        if (data[i] == '\n') {
            inbuf[inlen] = '\0';
            handle_line(inbuf);
            inlen = 0;
            skipping = 0;
        } else if (inlen < sizeof inbuf - 1) {
            inbuf[inlen++] = data[i];
        } else {
            skipping = 1;
        }
    }
}

/* Wait up to timeout_ms for the server's next bytes and dispatch them (lock held on entry and
 * exit; released while waiting).  When another caller is already reading, wait for its news. */
static void pump(DWORD timeout_ms)
{
    if (sock == INVALID_SOCKET)
        return;
    if (reading != INVALID_SOCKET) {
        SleepConditionVariableCS(&changed, &lock, timeout_ms);
        return;
    }
    SOCKET s = sock;
    reading = s;
    LeaveCriticalSection(&lock);
    fd_set r;
    FD_ZERO(&r);
    FD_SET(s, &r);
    struct timeval tv = {(long)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000};
    char chunk[4096];
    int n = 0, ready = select(0, &r, NULL, NULL, &tv);
    if (ready > 0)
        n = recv(s, chunk, sizeof chunk, 0);
    EnterCriticalSection(&lock);
    reading = INVALID_SOCKET;
    if (sock != s) { /* dropped while we read: ours to close */
        if (orphan == s) {
            closesocket(s);
            orphan = INVALID_SOCKET;
        }
    } else if (ready < 0 || (ready > 0 && n <= 0)) {
        drop_connection(); /* closed by the server, or broken */
    } else if (n > 0) {
        feed(chunk, n);
    }
    WakeAllConditionVariable(&changed);
}

/* Before a call sends anything, with nobody waiting: read what the server sent since the last
 * call (nothing it says then answers the new request) and notice a connection it closed, so the
 * call connects again instead of taking a stale line for its answer (lock held). */
static void discard_stale(void)
{
    if (queue_len > 0 || searching || reading != INVALID_SOCKET)
        return;
    while (sock != INVALID_SOCKET) {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(sock, &r);
        struct timeval now = {0, 0};
        int ready = select(0, &r, NULL, NULL, &now);
        if (ready == 0)
            break;
        char chunk[4096];
        int n = ready > 0 ? recv(sock, chunk, sizeof chunk, 0) : -1;
        if (n <= 0)
            drop_connection();
    }
    inlen = 0;
    skipping = 0;
}

/* Connected, or the reason why not in why (lock held). */
static int ensure_connected(char *why, size_t why_size)
{
    discard_stale();
    if (sock != INVALID_SOCKET)
        return 0;
    char host[256];
    int port;
    read_settings(host, sizeof host, &port);
    snprintf(where, sizeof where, "%s:%d", host, port);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port_text, &hints, &res) != 0 || !res) {
        snprintf(why, why_size, "samuel.dll: cannot resolve %s (from samuel.ini)", host);
        return -1;
    }
    SOCKET s = INVALID_SOCKET;
    for (struct addrinfo *a = res; a && s == INVALID_SOCKET; a = a->ai_next) {
        s = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (s == INVALID_SOCKET)
            continue;
        /* a bounded connect: non-blocking, then select */
        u_long nb = 1;
        ioctlsocket(s, FIONBIO, &nb);
        connect(s, a->ai_addr, (int)a->ai_addrlen);
        fd_set w, e;
        FD_ZERO(&w);
        FD_ZERO(&e);
        FD_SET(s, &w);
        FD_SET(s, &e);
        struct timeval tv = {CONNECT_TIMEOUT_MS / 1000, (CONNECT_TIMEOUT_MS % 1000) * 1000};
        int ok = select(0, NULL, &w, &e, &tv) == 1 && FD_ISSET(s, &w);
        int err = 0, errlen = sizeof err;
        if (ok && getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&err, &errlen) == 0 && err == 0) {
            nb = 0;
            ioctlsocket(s, FIONBIO, &nb);
        } else {
            closesocket(s);
            s = INVALID_SOCKET;
        }
    }
    freeaddrinfo(res);
    if (s == INVALID_SOCKET) {
        snprintf(why, why_size, "samuel.dll: no samuel server at %s; start one with `samuel serve` "
                 "(or set host and port in samuel.ini next to samuel.dll)", where);
        return -1;
    }
    BOOL on = TRUE;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&on, sizeof on);
    sock = s;
    queue_len = 0;
    inlen = 0;
    skipping = 0;
    send_ini_options();
    if (sock == INVALID_SOCKET) {
        snprintf(why, why_size, "samuel.dll: the connection to %s broke while it took samuel.ini's options",
                 where);
        return -1;
    }
    return 0;
}

static int send_all(const char *text, size_t len)
{
    while (len > 0) {
        int chunk = len > 65536 ? 65536 : (int)len;
        int n = send(sock, text, chunk, 0);
        if (n <= 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Send a line and, when p is given, queue it for the next immediate answer (lock held). */
static int send_line(const char *line, pending *p, char *why, size_t why_size)
{
    if (ensure_connected(why, why_size) != 0)
        return -1;
    if (p && queue_len == MAX_PENDING) {
        snprintf(why, why_size, "samuel.dll: too many requests waiting for %s", where);
        return -1;
    }
    if (send_all(line, strlen(line)) != 0) {
        drop_connection();
        snprintf(why, why_size, "samuel.dll: the connection to %s broke", where);
        return -1;
    }
    if (p) {
        p->state = ANS_NONE;
        queue[queue_len++] = p;
    }
    return 0;
}

/* Wait for p's answer (lock held); ANS_*. */
static int wait_answer(pending *p)
{
    DWORD start = GetTickCount();
    while (p->state == ANS_NONE) {
        if (sock == INVALID_SOCKET) {
            p->state = ANS_GONE;
            break;
        }
        if (GetTickCount() - start > ANSWER_TIMEOUT_MS) {
            drop_connection(); /* a server that stopped answering: start over next time */
            break;
        }
        pump(POLL_MS);
    }
    return p->state;
}

/* samuel.ini's engine options, each sent as `set key value` on a new connection (lock held): the
 * server checks them against its option table; the last refusal is kept for the About box. */
static void send_ini_options(void)
{
    char set[600], line[700];
    ini_note[0] = '\0';
    for (int i = 0;; i++) {
        int n = cbs_ini_option(ini_text, i, set, sizeof set);
        if (n == 0)
            return;
        if (n < 0 || cbs_format_command(set, line, sizeof line) < 0) {
            snprintf(ini_note, sizeof ini_note, "samuel.ini: option line %d has no value or is too long", i + 1);
            continue;
        }
        pending p;
        memset(&p, 0, sizeof p);
        if (queue_len == MAX_PENDING || send_all(line, strlen(line)) != 0) {
            drop_connection();
            return;
        }
        p.state = ANS_NONE;
        queue[queue_len++] = &p;
        int state = wait_answer(&p);
        if (state == ANS_OK && p.handled)
            continue;
        if (state != ANS_OK && state != ANS_ERROR)
            return; /* the connection is gone: ensure_connected says so */
        snprintf(ini_note, sizeof ini_note, "samuel.ini: %s refused: %s", set, p.text);
    }
}

/* The answer to one enginecommand, into out (at most CB_REPLY_SIZE bytes); the API's return. */
static int command(const char *text, char *out)
{
    if (cbs_is_movelist_probe(text)) {
        /* Declined as an English engine does (CheckerBoard's simplech too): CheckerBoard then
         * finds English moves itself, with no round trip per click and none to a missing server. */
        snprintf(out, CB_REPLY_SIZE, "?");
        return 0;
    }
    size_t size = cbs_command_line_size(text);
    char *line = malloc(size); /* set gamehist carries the whole reversible tail of the game */
    if (!line || cbs_format_command(text, line, size) < 0) {
        free(line);
        snprintf(out, CB_REPLY_SIZE, "samuel.dll: no memory for a command of %u bytes", (unsigned)strlen(text));
        return 0;
    }
    pending p;
    memset(&p, 0, sizeof p);
    int handled = 0;
    EnterCriticalSection(&lock);
    if (send_line(line, &p, out, CB_REPLY_SIZE) != 0) {
        if (cbs_command_is(text, "about")) {
            /* CheckerBoard shows the About box only for a return of 1: say there why samuel is mute. */
            char why[CB_REPLY_SIZE];
            snprintf(why, sizeof why, "%s", out);
            snprintf(out, CB_REPLY_SIZE, "samuel.dll, CheckerBoard's link to samuel serve\n%s", why);
            handled = 1;
        }
    } else {
        int state = wait_answer(&p);
        if (state == ANS_OK) {
            if (ini_note[0] && cbs_command_is(text, "about"))
                snprintf(out, CB_REPLY_SIZE, "%s\n%s", p.text, ini_note);
            else
                snprintf(out, CB_REPLY_SIZE, "%s", p.text);
            handled = p.handled;
        } else if (state == ANS_ERROR) {
            snprintf(out, CB_REPLY_SIZE, "samuel: %s", p.text);
        } else {
            snprintf(out, CB_REPLY_SIZE, "samuel.dll: the connection to %s was lost", where);
        }
    }
    LeaveCriticalSection(&lock);
    free(line);
    return handled;
}

__declspec(dllexport) int WINAPI enginecommand(char command_text[256], char reply[1024])
{
    InitOnceExecuteOnce(&once, init, NULL, NULL);
    char out[CB_REPLY_SIZE];
    int handled = command(command_text, out);
    /* Never more than the buffer CheckerBoard passed for this command: cut, with its NUL. */
    snprintf(reply, cbs_reply_size(command_text), "%s", out);
    return handled;
}

__declspec(dllexport) int WINAPI getmove(int board[8][8], int color, double maxtime, char str[1024],
                                         int *playnow, int info, int moreinfo, struct CBmove *move)
{
    (void)move; /* English: CheckerBoard finds the move from the board written back */
    InitOnceExecuteOnce(&once, init, NULL, NULL);
    char fen[CBS_FEN_SIZE], line[CBS_FEN_SIZE + 96];
    if (cbs_board_to_fen((const int(*)[8])board, color, fen, sizeof fen) < 0) {
        snprintf(str, CB_REPLY_SIZE, "samuel.dll: the board or colour is not CheckerBoard's");
        return CB_UNKNOWN;
    }
    cbs_format_getmove(fen, maxtime, info, moreinfo, line, sizeof line);
    pending ack;
    memset(&ack, 0, sizeof ack);
    EnterCriticalSection(&lock);
    if (searching) {
        LeaveCriticalSection(&lock);
        snprintf(str, CB_REPLY_SIZE, "samuel.dll: a search is already running");
        return CB_UNKNOWN;
    }
    char why[CB_REPLY_SIZE];
    if (ensure_connected(why, sizeof why) != 0) { /* before searching is set: stale lines go first */
        LeaveCriticalSection(&lock);
        snprintf(str, CB_REPLY_SIZE, "%s", why);
        return CB_UNKNOWN;
    }
    searching = 1;
    move_state = ANS_NONE;
    status_text[0] = '\0';
    int result = CB_UNKNOWN;
    if (send_line(line, NULL, str, CB_REPLY_SIZE) != 0 || send_line("ping\n", &ack, str, CB_REPLY_SIZE) != 0) {
        searching = 0;
        LeaveCriticalSection(&lock);
        return CB_UNKNOWN;
    }
    if (wait_answer(&ack) != ANS_OK) {
        if (ack.state == ANS_ERROR)
            snprintf(str, CB_REPLY_SIZE, "samuel: %s", ack.text);
        else
            snprintf(str, CB_REPLY_SIZE, "samuel.dll: the connection to %s was lost", where);
        searching = 0;
        LeaveCriticalSection(&lock);
        return CB_UNKNOWN;
    }
    int sent_playnow = 0;
    while (move_state == ANS_NONE) {
        if (sock == INVALID_SOCKET) {
            move_state = ANS_GONE;
            break;
        }
        if (*playnow && !sent_playnow) {
            sent_playnow = 1;
            send_line("playnow\n", NULL, why, sizeof why);
            continue;
        }
        if (status_text[0])
            snprintf(str, CB_REPLY_SIZE, "%s", status_text);
        pump(POLL_MS);
    }
    if (move_state == ANS_OK) {
        int after[8][8], side;
        if (cbs_fen_to_board(move_fen, after, &side) == 0) {
            memcpy(board, after, sizeof after);
            result = move_result;
            snprintf(str, CB_REPLY_SIZE, "%s %s", move_pdn, move_text);
        } else {
            snprintf(str, CB_REPLY_SIZE, "samuel.dll: cannot read the server's position %s", move_fen);
        }
    } else if (move_state == ANS_ERROR) {
        snprintf(str, CB_REPLY_SIZE, "samuel: %s", move_text);
    } else {
        snprintf(str, CB_REPLY_SIZE, "samuel.dll: the connection to %s was lost during the search", where);
    }
    searching = 0;
    LeaveCriticalSection(&lock);
    return result;
}
