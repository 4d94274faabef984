/*
 * cbdriver.c -- calls samuel.dll as CheckerBoard does, for the tests under
 * wine (tests/test_cbdll_wine.py): LoadLibrary, GetProcAddress, then
 *
 *   cbdriver DLL command TEXT
 *       enginecommand(TEXT): prints "rc N" and "reply TEXT"
 *   cbdriver DLL getmove FEN MAXTIME INFO MOREINFO [PLAYNOW_MS [COMMAND]]
 *       getmove() on FEN's board; prints "rc N", "fen FEN-AFTER", "str TEXT",
 *       "ms ELAPSED".  PLAYNOW_MS > 0 sets *playnow after that many ms from
 *       another thread; COMMAND is sent through enginecommand from a third
 *       thread 100 ms into the search ("during rc N ms T reply TEXT").
 *
 * Replies are printed with newlines as "\n" so each result stays one line.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_shim.h"

typedef int(WINAPI *getmove_fn)(int[8][8], int, double, char[1024], int *, int, int, void *);
typedef int(WINAPI *command_fn)(char[256], char[1024]);

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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cbdriver DLL command TEXT | getmove FEN MAXTIME INFO MOREINFO [PLAYNOW_MS [CMD]]\n");
        return 2;
    }
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
        char command[256], reply[1024] = "";
        snprintf(command, sizeof command, "%s", argv[3]);
        int rc = enginecommand(command, reply);
        printf("rc %d\n", rc);
        print_text("reply", reply);
        return 0;
    }
    if (!strcmp(argv[2], "getmove") && argc >= 7) {
        int board[8][8], color;
        if (cbs_fen_to_board(argv[3], board, &color) != 0) {
            printf("error bad FEN %s\n", argv[3]);
            return 2;
        }
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
