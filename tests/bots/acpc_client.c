/* The project's ACPC reference client (dealer protocol 2.0.0), written from the protocol's
   description for the tests: acpc_client GAME_FILE HOST PORT [trace]

   It reads the game definition, connects, says VERSION:2.0.0, and for every MATCHSTATE line
   works out from the betting whether it is its turn; then it raises on some streets (no limit:
   to the minimum or one big blind more, a total for the hand), folds to a bet on some hands after
   the flop, and otherwise checks or calls. The choice depends only on the hand number and the
   round, so that runs are reproducible. It exits when the dealer closes the connection. With
   "trace" it also copies every line it receives to stderr (its log). */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PLAYERS 10
#define MAX_ROUNDS 4

static int no_limit, players, first_player[MAX_ROUNDS], max_raises[MAX_ROUNDS];
static long stack = 2147483647, blind[MAX_PLAYERS], raise_size[MAX_ROUNDS];

static int read_numbers(const char *text, long *out, int most) {
    int count = 0;
    char *end;
    for (long v = strtol(text, &end, 10); end != text && count < most; v = strtol(text, &end, 10)) {
        out[count++] = v;
        text = end;
    }
    return count;
}

static void read_game(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    long values[MAX_PLAYERS];
    if (!f) { perror(path); exit(2); }
    while (fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (strncmp(line, "nolimit", 7) == 0) no_limit = 1;
        if (!eq) continue;
        int n = read_numbers(eq + 1, values, MAX_PLAYERS);
        if (strncmp(line, "numPlayers", 10) == 0) players = (int)values[0];
        else if (strncmp(line, "stack", 5) == 0) stack = values[0];
        else if (strncmp(line, "blind", 5) == 0) memcpy(blind, values, n * sizeof(long));
        else if (strncmp(line, "raiseSize", 9) == 0) memcpy(raise_size, values, n * sizeof(long));
        else if (strncmp(line, "firstPlayer", 11) == 0) for (int k = 0; k < n; k++) first_player[k] = (int)values[k] - 1;
        else if (strncmp(line, "maxRaises", 9) == 0) for (int k = 0; k < n; k++) max_raises[k] = (int)values[k];
    }
    fclose(f);
    if (players < 2 || players > MAX_PLAYERS) { fprintf(stderr, "%s: bad numPlayers\n", path); exit(2); }
}

/* The betting of one hand replayed: who acts next, and what a raise may be. */
typedef struct {
    int folded[MAX_PLAYERS], round, actor, to_act, raises;
    long spent[MAX_PLAYERS], max_spent, min_increment;
} Betting;

static int can_act(const Betting *b, int p) { return !b->folded[p] && b->spent[p] < stack; }

static int count_active(const Betting *b, int except) {
    int n = 0;
    for (int p = 0; p < players; p++) n += p != except && can_act(b, p);
    return n;
}

static int next_actor(const Betting *b, int from) {
    for (int k = 0; k < players; k++) {
        int p = (from + k) % players;
        if (can_act(b, p)) return p;
    }
    return -1;
}

static void start_round(Betting *b) {
    b->raises = 0;
    b->min_increment = blind[0] > blind[1] ? blind[0] : blind[1];
    b->actor = next_actor(b, first_player[b->round]);
    b->to_act = count_active(b, -1);
}

static void replay(Betting *b, const char *betting) {
    memset(b, 0, sizeof *b);
    for (int p = 0; p < players; p++) {
        b->spent[p] = blind[p];
        if (blind[p] > b->max_spent) b->max_spent = blind[p];
    }
    start_round(b);
    for (const char *c = betting; *c; c++) {
        if (*c == '/') { b->round++; start_round(b); continue; }
        int p = b->actor;
        if (p < 0) return;
        if (*c == 'f') { b->folded[p] = 1; b->to_act--; }
        else if (*c == 'c') { b->spent[p] = b->max_spent < stack ? b->max_spent : stack; b->to_act--; }
        else if (*c == 'r') {
            long total = no_limit ? strtol(c + 1, NULL, 10) : b->max_spent + raise_size[b->round];
            while (no_limit && c[1] >= '0' && c[1] <= '9') c++;
            if (total - b->max_spent > b->min_increment) b->min_increment = total - b->max_spent;
            b->max_spent = total;
            b->spent[p] = total;
            b->raises++;
            b->to_act = count_active(b, p);
        }
        b->actor = next_actor(b, p + 1);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s GAME_FILE HOST PORT\n", argv[0]); return 2; }
    read_game(argv[1]);
    struct addrinfo hints = {0}, *addr;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(argv[2], argv[3], &hints, &addr) != 0) { fprintf(stderr, "cannot resolve %s\n", argv[2]); return 1; }
    int fd = socket(addr->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, addr->ai_addr, addr->ai_addrlen) != 0) { perror("connect"); return 1; }
    FILE *in = fdopen(fd, "r"), *out = fdopen(dup(fd), "w");
    fprintf(out, "VERSION:2.0.0\r\n");
    fflush(out);
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = 0;
        if (argc > 4 && strcmp(argv[4], "trace") == 0) fprintf(stderr, "%s\n", line);
        int position, hand, consumed = 0;
        if (line[0] == '#' || line[0] == ';') continue;
        if (sscanf(line, "MATCHSTATE:%d:%d:%n", &position, &hand, &consumed) != 2 || !consumed) {
            fprintf(stderr, "not a MATCHSTATE line: %s\n", line);
            continue;
        }
        char betting[2048];
        const char *rest = line + consumed, *colon = strchr(rest, ':');
        if (!colon || colon - rest >= (long)sizeof betting) continue;
        memcpy(betting, rest, colon - rest);
        betting[colon - rest] = 0;
        Betting b;
        replay(&b, betting);
        if (b.to_act <= 0 || b.actor != position) continue;
        int unfolded = 0;
        for (int p = 0; p < players; p++) unfolded += !b.folded[p];
        if (unfolded < 2) continue;
        long facing = b.max_spent - b.spent[position];
        int can_raise = no_limit ? b.max_spent < stack : b.raises < max_raises[b.round];
        char action[32] = "c";
        if (can_raise && (hand + b.round) % 3 == 0 && b.raises < 2) {
            long big = blind[0] > blind[1] ? blind[0] : blind[1];
            long to = b.max_spent + b.min_increment + (hand % 2) * big;
            if (to > stack) to = stack;
            if (no_limit) snprintf(action, sizeof action, "r%ld", to);
            else strcpy(action, "r");
        } else if (facing > 0 && b.round >= 1 && hand % 7 == 3) {
            strcpy(action, "f");
        }
        fprintf(out, "%s:%s\r\n", line, action);
        fflush(out);
    }
    return 0;
}
