/*
 * help.c -- alea --help and alea COMMAND --help.
 */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

/* Writes text word-wrapped to end before column 80, continuation lines
 * indented to column indent (the first line starts there already). */
static void put_wrapped(FILE *f, size_t indent, const char *text)
{
    size_t col = indent;
    while (*text) {
        size_t w = strcspn(text, " ");
        if (col > indent && col + 1 + w > 79) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(text, 1, w, f);
        col += w;
        text += w;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

static void print_limits(FILE *f)
{
    fprintf(f, "Limits (any command):\n  %-18s %9s  %s\n", "option", "default",
            "what it counts");
    for (int i = 0; i < ALEA_LIMIT__COUNT; i++) {
        alea_limit l = (alea_limit)i;
        char opt[48], def[32];
        int64_t d = alea_limit_default(l);
        snprintf(opt, sizeof opt, "--max-%s %s", alea_limit_name(l),
                 limit_is_bytes(l) ? "BYTES" : "N");
        if (limit_is_bytes(l) && d >= 1048576 && d % 1048576 == 0)
            snprintf(def, sizeof def, "%" PRId64 "M", d / 1048576);
        else
            snprintf(def, sizeof def, "%" PRId64, d);
        fprintf(f, "  %-18s %9s  ", opt, def);
        put_wrapped(f, 32, alea_limit_what(l));
    }
    fprintf(f, "  %-18s %9g  ", "--tail P", ALEA_TAIL_DEFAULT);
    put_wrapped(f, 32, "probability left in an explosion tail when dist stops "
                       "following it");
    fprintf(f, "  %-18s %9s  ", "--timeout MS", "none");
    put_wrapped(f, 32, "milliseconds one expression may take (all its rolls, or its "
                       "distribution; each line of standard input)");
    fprintf(f, "  %-18s %9d  ", "--time-limit S", TIME_LIMIT_DEFAULT);
    put_wrapped(f, 32, "seconds the whole command may take (each line of standard "
                       "input or of the session); 0: no limit");
    fputs("  BYTES takes a k, M or G suffix; a value above a limit's maximum is\n"
          "  lowered to it.\n", f);
}

void help_main(FILE *f)
{
    fprintf(f, "alea %s -- roll tabletop dice, or compute their exact odds\n\n",
            alea_version());
    fputs("Usage:\n"
          "  alea                          at a terminal: an interactive session\n"
          "  alea EXPR...                  roll each expression (as 'alea roll')\n"
          "  alea roll [-n N] [--seed S] [--json] [EXPR...]\n"
          "  alea dist [--at-least | --at-most] [--json | --csv] [--sample N] [EXPR]\n"
          "  alea compare [--at-least | --at-most] [--csv] EXPR EXPR...\n"
          "  alea help [COMMAND]           this text, or a command's (also COMMAND --help)\n"
          "  alea --version\n"
          "\n"
          "Commands:\n"
          "  roll      roll and show every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14\n"
          "  dist      the exact distribution of an expression, as a table\n"
          "  compare   several distributions side by side\n"
          "\n"
          "In the session each line is rolled (an empty line rolls it again); :dist,\n"
          ":compare, :seed and :help do the rest. Breakdowns are in colour on a\n"
          "terminal, unless NO_COLOR is set.\n"
          "\n"
          "Without EXPR, roll and dist read standard input when it is not a terminal:\n"
          "one expression per line, each answered in turn (blank lines are skipped).\n"
          "A bad line is reported on stderr and the others go on; the exit status is\n"
          "1 if any line failed. A line longer than the source limit gets its error.\n"
          "\n",
          f);
    print_limits(f);
    fputs("\n"
          "Examples:\n"
          "  alea 4d6kh3                      roll 4d6, keep the highest 3\n"
          "  alea roll -n 6 --seed 7 4d6kh3   six rolls, the same every time\n"
          "  alea '1d20 + 5' 2d6+3            attack, then damage\n"
          "  alea dist 3d6                    the odds of every total\n"
          "  alea dist --at-least '1d20+7'    the odds to reach each number\n"
          "  alea compare 2d20kh1 1d20 2d20kl1\n"
          "\n"
          "Quote an expression with spaces or shell characters ('3d6!', '1d20 + 5').\n"
          "The dice language: docs/language.md\n",
          f);
}


/* The boons options, shared by dist and compare. */
static const char boon_help[] =
    "Boons and banes of a dd() roll (seed 002), from your game's tables:\n"
    "  --boons D:N,...      boons or banes earned at each difficulty, as in\n"
    "                       10:1,14:2,16:6 (the last row <= the roll's applies)\n"
    "  --multipliers A,B,C,D  per tier (critical failure, failure, success,\n"
    "                       critical success); negative means banes\n"
    "                       (default 0,0,1,1)\n"
    "  --drive N            drive spent: N boons on a success or better\n"
    "  --support            a support roll: half boons\n"
    "\n";

void help_command(command cmd, FILE *f)
{
    switch (cmd) {
    case CMD_ROLL:
        fputs("Usage: alea roll [-n N] [--seed S] [--json] [EXPR...]\n"
              "       alea EXPR...\n"
              "\n"
              "Rolls each expression N times, in order, one line per roll with\n"
              "every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14\n"
              "\n"
              "With no EXPR and standard input not a terminal, rolls each line of\n"
              "standard input in turn (blank lines are skipped). A bad line is\n"
              "reported on stderr and the others still roll; exit status 1 if any\n"
              "line failed.\n"
              "\n"
              "  -n N        roll each expression N times [1]\n"
              "  --seed S    seed the generator with S (0 to 18446744073709551615)\n"
              "              so the rolls are reproducible; default: from the OS\n"
              "  --json      one JSON object per roll and line\n"
              "\n",
              f);
        break;
    case CMD_DIST:
        fputs("Usage: alea dist [--at-least | --at-most] [--json | --csv] [--sample N] [EXPR]\n"
              "\n"
              "Prints the exact probability of every value of EXPR, with the odds\n"
              "of at least and at most that value, a bar chart, and the mean,\n"
              "standard deviation, min, max and median.\n"
              "\n"
              "With no EXPR and standard input not a terminal, does so for each\n"
              "line of standard input in turn: one JSON object per line with\n"
              "--json, else a blank line between tables. A bad line is reported\n"
              "on stderr and the others go on; exit status 1 if any line failed.\n"
              "\n"
              "  --at-least  chart P(X >= value) instead of P(X = value)\n"
              "  --at-most   chart P(X <= value)\n"
              "  --json      the distribution as one JSON object\n"
              "  --csv       value,probability,at_least,at_most rows\n"
              "\n"
              "Past the exact engine's limits, estimate instead:\n"
              "  --sample N  roll N times (at most 10^12) and count: each probability\n"
              "              with its 95% interval, marked as an estimate\n"
              "  --threads T roll on T threads [every core, at most 64]\n"
              "  --seed S    the streams' seed [from the OS, shown]: the same seed\n"
              "              and threads give the same estimate\n"
              "\n",
              f);
        fputs(boon_help, f);
        break;
    case CMD_COMPARE:
    default:
        fputs("Usage: alea compare [--at-least | --at-most] [--csv] EXPR EXPR...\n"
              "\n"
              "Prints the distributions of several expressions side by side: one\n"
              "column each, a row per value (blank where a value is impossible),\n"
              "then their mean, sd, min, max and median.\n"
              "\n"
              "  --at-least  show P(X >= value) in every cell\n"
              "  --at-most   show P(X <= value)\n"
              "  --csv       value,<expression>,... rows of probabilities\n"
              "\n",
              f);
        fputs(boon_help, f);
        break;
    }
    print_limits(f);
}
