/* A stdio poker bot in C (docs/bots-stdio.md): bets the minimum when betting is free, else checks or calls.
   Build: gcc -O2 -o bot bot.c    Run: dealer match "stdio:sample_bots/c/bot" ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The integer after "key": in a line the dealer wrote (compact JSON, one key of each name per line). */
static long long field(const char *line, const char *key) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    const char *at = strstr(line, quoted);
    return at ? strtoll(at + strlen(quoted), NULL, 10) : 0;
}

int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "{\"type\":\"goodbye\"", 17) == 0) break;
        if (strncmp(line, "{\"type\":\"request\"", 17) != 0) continue; /* everything else is information */
        long long table = field(line, "table"), id = field(line, "request_id");
        long long min_to = field(line, "min_raise_to"), call = field(line, "call_amount");
        if (min_to > 0 && call == 0)
            printf("{\"table\":%lld,\"request_id\":%lld,\"action\":\"bet_raise\",\"amount\":%lld}\n", table, id, min_to);
        else
            printf("{\"table\":%lld,\"request_id\":%lld,\"action\":\"check_call\"}\n", table, id);
        fflush(stdout);
    }
    return 0;
}
