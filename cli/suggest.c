/*
 * suggest.c -- "did you mean": the nearest of a few known words (commands,
 * help topics, options) to a mistyped one, by edit distance with adjacent
 * transpositions ("dsit" is one edit from "dist").
 */
#include "cli.h"

#include <string.h>

/* Words longer than this are not compared: no command or option is. */
#define SUGGEST_WORD_MAX 40

/* Edits (insert, delete, substitute, swap two neighbours) from a to b;
 * SUGGEST_WORD_MAX + 1 when either is too long to be a near miss. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SUGGEST_WORD_MAX || m > SUGGEST_WORD_MAX)
        return SUGGEST_WORD_MAX + 1;
    size_t d[SUGGEST_WORD_MAX + 1][SUGGEST_WORD_MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

void suggest_start(suggestion *s, const char *word)
{
    s->word = word;
    s->dist = SUGGEST_WORD_MAX + 1;
    s->best[0] = '\0';
}

void suggest_offer(suggestion *s, const char *candidate)
{
    /* a near miss: one edit in a short word, two in a longer one; a word
     * of one or two characters ("-x") is near everything */
    if (strlen(s->word) < 3 || strlen(candidate) < 3)
        return;
    size_t d = distance(s->word, candidate);
    size_t most = strlen(candidate) >= 6 ? 2 : 1;
    if (d == 0 || d > most || d >= s->dist || strlen(candidate) >= sizeof s->best)
        return;
    s->dist = d;
    memcpy(s->best, candidate, strlen(candidate) + 1);
}

const char *suggest_result(const suggestion *s)
{
    return s->best[0] ? s->best : NULL;
}
