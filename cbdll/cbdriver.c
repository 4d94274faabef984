/*
 * cbdriver.c -- calls samuel.dll as CheckerBoard does, for the tests under
 * wine (tests/test_cbdll_wine.py): LoadLibrary, GetProcAddress, then
 *
 *   cbdriver DLL command TEXT [TEXT...]
 *       enginecommand(TEXT) for each TEXT, of any length, with a 1,024-byte
 *       reply buffer filled with a marker first: prints "rc N", "reply TEXT"
 *       and "used N" (the bytes written into the buffer, NUL included); a TEXT
 *       of "@wait" instead prints "waiting" and waits for a line on stdin
 *   cbdriver DLL getmove FEN MAXTIME INFO MOREINFO [PLAYNOW_MS [COMMAND]]
 *       getmove() on FEN's board; prints "rc N", "fen FEN-AFTER", "str TEXT",
 *       "ms ELAPSED".  PLAYNOW_MS > 0 sets *playnow after that many ms from
 *       another thread; COMMAND is sent through enginecommand from a third
 *       thread 100 ms into the search ("during rc N ms T reply TEXT").
 *   cbdriver DLL history TEXT FEN MAXTIME
 *       enginecommand(TEXT) (CheckerBoard's "set gamehist ..." of any length),
 *       printed as for command, then getmove() on FEN with CB_EXACT_TIME,
 *       printed as for getmove, in one session.
 *   cbdriver DLL unload FEN MAXTIME
 *       CheckerBoard switching engines: getmove() on FEN, then FreeLibrary;
 *       prints "threads BEFORE LOADED AFTER" (this process's threads
 *       before LoadLibrary, after getmove, after FreeLibrary) and "freed", then waits for a line
 *       on stdin (the test stops the server meanwhile), waits SETTLE_MS for
 *       anything the DLL left behind to run, and prints "alive".
 *   cbdriver DLL stack
 *       (32-bit builds) enginecommand("name") called by hand, printing
 *       "left N": the bytes of arguments still on the stack after it returned
 *       (0 for stdcall, whose callee pops them; 8 for a cdecl function).
 *
 * Replies are printed with newlines as "\n" so each result stays one line.
 */
#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_shim.h"

typedef int(WINAPI *getmove_fn)(int[8][8], int, double, char[1024], int *, int, int, void *);
typedef int(WINAPI *command_fn)(char[256], char[1024]);

#define SETTLE_MS 1000
#define MARK 0x5a

static command_fn enginecommand;
static volatile int playnow;
static int playnow_ms;
static char during_command[256];

static void print_text(const char *key, const char *text)
{
    printf("%s ", key);
    for (const char *s = text; *s; s++)
        if (*s == '\n')
            fputs("\\n", stdout);
        else if (*s != '\r')
            putchar(*s);
    putchar('\n');
}

static DWORD WINAPI press_playnow(LPVOID arg)
{
    (void)arg;
    Sleep((DWORD)playnow_ms);
    playnow = 1;
    return 0;
}

static DWORD WINAPI command_during_search(LPVOID arg)
{
    (void)arg;
    char reply[1024] = "";
    Sleep(100);
    DWORD start = GetTickCount();
    int rc = enginecommand(during_command, reply);
    printf("during rc %d ms %lu ", rc, (unsigned long)(GetTickCount() - start));
    print_text("reply", reply);
    fflush(stdout);
    return 0;
}

/* The threads of this process now. */
static int count_threads(void)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return -1;
    THREADENTRY32 t;
    t.dwSize = sizeof t;
    int n = 0;
    for (BOOL ok = Thread32First(snap, &t); ok; ok = Thread32Next(snap, &t))
        if (t.th32OwnerProcessID == GetCurrentProcessId())
            n++;
    CloseHandle(snap);
    return n;
}

static int read_board(const char *fen, int board[8][8], int *color)
{
    if (cbs_fen_to_board(fen, board, color) != 0) {
        printf("error bad FEN %s\n", fen);
        return -1;
    }
    return 0;
}

#if defined(__i386__)
/* enginecommand(cmd, reply) pushed and called by hand: the bytes the callee left on the stack. */
static unsigned left_on_stack(command_fn fn, char *cmd, char *reply, int *rc)
{
    unsigned left;
    int r;
    /* ebx keeps the stack pointer from before the pushes (callee-saved, like esi and edi);
     * the callee may change eax, ecx and edx. */
    __asm__ volatile("movl %%esp, %%ebx\n\t"
                     "pushl %%edx\n\t"
                     "pushl %%edi\n\t"
                     "call *%%esi\n\t"
                     "movl %%ebx, %%ecx\n\t"
                     "subl %%esp, %%ecx\n\t"
                     "movl %%ebx, %%esp\n\t"
                     : "=c"(left), "=a"(r), "+d"(reply)
                     : "S"(fn), "D"(cmd)
                     : "ebx", "memory", "cc");
    *rc = r;
    return left;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cbdriver DLL command TEXT... | getmove FEN MAXTIME INFO MOREINFO [PLAYNOW_MS [CMD]]"
                        " | history TEXT FEN MAXTIME | unload FEN MAXTIME | stack\n");
        return 2;
    }
    /* CheckerBoard keeps winsock loaded itself (wininet imports it): so winsock does not go, and
     * close the DLL's sockets, when FreeLibrary unloads samuel.dll, as it would for a lone user. */
    LoadLibraryA("ws2_32.dll");
    int threads_before = count_threads();
    HMODULE dll = LoadLibraryA(argv[1]);
    if (!dll) {
        printf("error cannot load %s (%lu)\n", argv[1], (unsigned long)GetLastError());
        return 1;
    }
    getmove_fn getmove = (getmove_fn)(void *)GetProcAddress(dll, "getmove");
    enginecommand = (command_fn)(void *)GetProcAddress(dll, "enginecommand");
    if (!getmove || !enginecommand) {
        printf("error %s does not export getmove and enginecommand\n", argv[1]);
        return 1;
    }
    if (!strcmp(argv[2], "command")) {
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "@wait")) { /* the test changes something on the server's side */
                char go[16];
                printf("waiting\n");
                fflush(stdout);
                if (!fgets(go, sizeof go, stdin))
                    return 2;
                continue;
            }
            char reply[1024];
            memset(reply, MARK, sizeof reply);
            int rc = enginecommand(argv[i], reply); /* any length, as CheckerBoard's set gamehist */
            int used = (int)sizeof reply;
            while (used > 0 && (unsigned char)reply[used - 1] == MARK)
                used--;
            reply[sizeof reply - 1] = '\0';
            printf("rc %d\n", rc);
            print_text("reply", reply);
            printf("used %d\n", used);
        }
        return 0;
    }
    if (!strcmp(argv[2], "history") && argc >= 6) {
        int board[8][8], color, stop = 0;
        if (read_board(argv[4], board, &color) != 0)
            return 2;
        char reply[1024] = "";
        int rc = enginecommand(argv[3], reply);
        printf("rc %d\n", rc);
        print_text("reply", reply);
        char str[1024] = "", cbmove[1024] = {0};
        rc = getmove(board, color, atof(argv[5]), str, &stop, CB_EXACT_TIME, 0, cbmove);
        char fen[CBS_FEN_SIZE];
        if (cbs_board_to_fen((const int(*)[8])board, color ^ (CB_WHITE | CB_BLACK), fen, sizeof fen) < 0)
            snprintf(fen, sizeof fen, "?");
        printf("result %d\nfen %s\n", rc, fen);
        print_text("str", str);
        return 0;
    }
    if (!strcmp(argv[2], "unload") && argc >= 5) {
        int board[8][8], color, stop = 0;
        if (read_board(argv[3], board, &color) != 0)
            return 2;
        char str[1024] = "", cbmove[1024] = {0};
        int rc = getmove(board, color, atof(argv[4]), str, &stop, 0, 0, cbmove);
        printf("rc %d\n", rc);
        print_text("str", str);
        int threads_loaded = count_threads();
        FreeLibrary(dll);
        printf("threads %d %d %d\nfreed\n", threads_before, threads_loaded, count_threads());
        fflush(stdout);
        char go[16];
        if (!fgets(go, sizeof go, stdin))
            return 2;
        Sleep(SETTLE_MS); /* a thread the DLL left would now return from recv into unmapped code */
        printf("alive\n");
        return 0;
    }
    if (!strcmp(argv[2], "stack")) {
#if defined(__i386__)
        char cmd[256] = "name", reply[1024] = "";
        int rc;
        unsigned left = left_on_stack(enginecommand, cmd, reply, &rc);
        printf("rc %d\nleft %u\n", rc, left);
        print_text("reply", reply);
        return 0;
#else
        printf("error stack needs the 32-bit driver\n");
        return 2;
#endif
    }
    if (!strcmp(argv[2], "getmove") && argc >= 7) {
        int board[8][8], color;
        if (read_board(argv[3], board, &color) != 0)
            return 2;
        playnow_ms = argc > 7 ? atoi(argv[7]) : 0;
        HANDLE threads[2];
        int nthreads = 0;
        if (playnow_ms > 0)
            threads[nthreads++] = CreateThread(NULL, 0, press_playnow, NULL, 0, NULL);
        if (argc > 8) {
            snprintf(during_command, sizeof during_command, "%s", argv[8]);
            threads[nthreads++] = CreateThread(NULL, 0, command_during_search, NULL, 0, NULL);
        }
        char str[1024] = "";
        char cbmove[1024] = {0}; /* room for struct CBmove, which English engines leave alone */
        DWORD start = GetTickCount();
        int rc = getmove(board, color, atof(argv[4]), str, (int *)&playnow, atoi(argv[5]),
                         (int)strtol(argv[6], NULL, 0), cbmove);
        DWORD took = GetTickCount() - start;
        WaitForMultipleObjects((DWORD)nthreads, threads, TRUE, 5000);
        char fen[CBS_FEN_SIZE];
        if (cbs_board_to_fen((const int(*)[8])board, color ^ (CB_WHITE | CB_BLACK), fen, sizeof fen) < 0)
            snprintf(fen, sizeof fen, "?");
        printf("rc %d\nfen %s\n", rc, fen);
        print_text("str", str);
        printf("ms %lu\n", (unsigned long)took);
        return 0;
    }
    fprintf(stderr, "cbdriver: unknown request %s\n", argv[2]);
    return 2;
}
