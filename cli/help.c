/*
 * help.c -- alea --help and alea COMMAND --help. The commands' words are
 * here; every option line is printed from the option table (options.c),
 * so an option is listed wherever it is taken.
 */
#include "options.h"

#include <inttypes.h>
#include <string.h>

/* What the help says of each command. */
static const struct command_text {
    const char *usage;   /* after "alea " */
    const char *summary; /* its line in alea --help */
    const char *about;   /* its help, after its usage line */
} command_text[CMD__COUNT] = {
    [CMD_ROLL] = {
        "roll [-n N] [--luck] [--seed S] [--json] [EXPR...]",
        "roll and show every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14",
        "       alea EXPR...\n"
        "\n"
        "Rolls each expression N times, in order, one line per roll with\n"
        "every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14\n"
        "\n"
        "With no EXPR and standard input not a terminal, rolls each line of\n"
        "standard input in turn (blank lines are skipped). A bad line is\n"
        "reported on stderr and the others still roll; exit status 1 if any\n"
        "line failed.\n"},
    [CMD_DIST] = {
        "dist [--at-least | --at-most] [--json | --csv] [--sample N] [EXPR]",
        "the exact distribution of an expression, as a table",
        "\n"
        "Prints the exact probability of every value of EXPR, with the odds\n"
        "of at least and at most that value, a bar chart, and the mean,\n"
        "standard deviation, min, max and median. Every value that can happen\n"
        "is in --json and --csv, however rare (a result near the double range\n"
        "is computed again in fractions, or a note says why rarer values may\n"
        "be missing); the table hides the runs of values at either end below\n"
        "0.005% and says how many and how much (--all shows them; a rare value\n"
        "between has two significant digits).\n"
        "\n"
        "With no EXPR and standard input not a terminal, does so for each\n"
        "line of standard input in turn: one JSON object per line with\n"
        "--json, else a blank line between tables. A bad line is reported\n"
        "on stderr and the others go on; exit status 1 if any line failed.\n"},
    [CMD_COMPARE] = {
        "compare [--at-least | --at-most] [--json | --csv] [NAME=]EXPR...",
        "several distributions side by side",
        "\n"
        "Prints the distributions of several expressions side by side: one\n"
        "column each, a row per value (blank where a value is impossible),\n"
        "then their mean, sd, min, max and median.\n"
        "\n"
        "Under them, each expression against the first (A vs B, every pair with\n"
        "--pairs), both rolled once: the chances that A rolls higher, the same\n"
        "and lower than B, and three distances between their distributions:\n"
        "TV (total variation: the most by which the chance of any set of\n"
        "values differs), KS (Kolmogorov-Smirnov: the most by which the chance\n"
        "of rolling at most a value differs) and EMD (earth mover's: how far,\n"
        "on average, A's outcomes move to make B's). In --json, \"versus\".\n"
        "\n"
        "NAME=EXPR names a column (alea compare adv=2d20kh1 plain=d20): NAME is\n"
        "words of letters, digits, _ and - (from a letter or _), one space apart,\n"
        "at most " STR(COLUMN_NAME_MAX) " characters.\n"
        "An argument that is an expression as it stands (the comparison d20=20,\n"
        "the capped explosion d4x2=4) is never read as a name.\n"},
    [CMD_TABLE] = {
        "table EXPR NAME=A..B [NAME=A..B] [--stat STAT]... [--csv | --json]",
        "a statistic of an expression over a range of values of its names",
        "\n"
        "Computes EXPR's exact distribution for each value of the names swept\n"
        "and prints a statistic of each: a row per value of the first name, a\n"
        "column per value of the second (with one name, a column per --stat).\n"
        "A name takes a range A..B, A..B..STEP (dc=10..30..5) or a list of\n"
        "either (m=0,2,5; n=-3..3,10).\n"
        "Probabilities print as percentages.\n"
        "\n"
        "  alea table 'd20 + m >= dc' m=0..10 dc=10..20      the chance to hit\n"
        "  alea table 'event(tier(d4, +n))' n=0..22 --stat mean \\\n"
        "             --stat 'critical failure'\n"
        "\n"
        "The names are the expression's parameters; where the language takes only\n"
        "a fixed number (dd()'s modifier, tier()'s steps, +n DICE) or a name reads\n"
        "as dice (d), each cell's value is written into the text instead.\n"},
    [CMD_FAIRNESS] = {
        "fairness [--json] [--seed S] [FILE]",
        "a log of rolls judged against fair dice: are they low?",
        "\n"
        "Reads a log of rolls from FILE (standard input with no FILE, or -):\n"
        "a line 'EXPR TOTAL' each (the last field is the total; for a repeat,\n"
        "one roll's), or the lines roll --json prints (every roll of a\n"
        "repeat). Blank lines and lines from '#' are skipped.\n"
        "\n"
        "Each roll is placed in its expression's exact distribution; over all\n"
        "of them, the mean place (are the rolls low or high?) and their spread\n"
        "(Kolmogorov-Smirnov) are tested, and each expression with enough\n"
        "rolls gets a chi-square against its distribution. The p-values are\n"
        "adjusted for the number of tests (Holm); below 0.01 the verdict is\n"
        "that the rolls are not what fair dice give (docs/fairness.md):\n"
        "\n"
        "  alea roll --json -n 1000 d20 | alea fairness     consistent with fair dice\n"
        "\n"
        "Exit status: 0 consistent (or too few rolls to tell), 3 not fair,\n"
        "1 when a line was refused (each is reported on stderr with its line\n"
        "and byte; the verdict is on the others), 2 bad usage.\n"},
    [CMD_POLICY] = {
        "policy [--json | --csv] [--exact] EXPR",
        "the player's best choice in every situation, with its chance",
        "\n"
        "EXPR is a mechanic with a choice, written alone: reroll(POOL, ROUNDS,\n"
        "GOAL), dd(M, D, GOAL) or event(POOL, GOAL). Prints each situation the\n"
        "player can see at the first choice (the dice rolled, the first d20),\n"
        "the choice best for the goal, how often the situation comes, the\n"
        "goal's value with that choice, and its value as the roll stands.\n"
        "Situations in a row that share a choice name it once.\n"
        "\n"
        "  alea policy 'reroll(2d6, 1, >= 10)'     which dice to roll again\n"},
    [CMD_SERVE] = {
        "serve [--port N] [--bind ADDR] [--timeout MS] [--max-connections N]",
        "roll, dist, compare, table, fairness and policy over HTTP, for bots",
        "\n"
        "Answers HTTP requests on ADDR:N until SIGINT or SIGTERM, and prints\n"
        "the URL it listens on first. Each request is evaluated in a context of\n"
        "its own, within the limits below and its deadline; bodies are sent as\n"
        "Content-Type: application/json (docs/serve.md shows a bot):\n"
        "\n"
        "  POST /roll  {\"expr\": \"4d6kh3\", \"n\": 1, \"seed\": 7, \"dialect\": \"roll20\",\n"
        "               \"format\": \"json\"}   (or text, markdown: each roll's line)\n"
        "              {\"rolls\": [<the roll as roll --json>, ...], \"seed\": 7}\n"
        "  POST /dist  {\"expr\": \"3d6\", \"exact\": false, \"dialect\": \"alea\"}\n"
        "              <the distribution as dist --json>\n"
        "  POST /compare  {\"exprs\": [\"2d20kh1\", \"1d20+5\"]}   <as compare --json>\n"
        "  POST /fairness  {\"rolls\": [{\"expression\": \"d20\", \"total\": 17}, ...]}\n"
        "              or {\"text\": \"d20 17\\n...\"}   <as fairness --json>\n"
        "  POST /policy  {\"expr\": \"dd(3, 14, best)\"}   <as policy --json>\n"
        "  GET /health {\"status\": \"ok\"}       GET /openapi.json  this API, described\n"
        "\n"
        "Only expr (exprs) is required. An error is {\"error\": {\"message\": ...,\n"
        "\"start\": S, \"end\": E, \"status\": \"ALEA_ERR_SYNTAX\", \"caret\": ..., \"hint\":\n"
        "...}} (S and E bytes of the body for bad JSON, of expr for a bad\n"
        "expression) with status 400 (bad request), 403 (a web page's), 404, 405,\n"
        "408 (too slow to arrive), 413 (body past --max-request), 415 (not JSON),\n"
        "422 (the expression: syntax, limits), 429 or 503 (too many at once, or\n"
        "the deadline).\n"},
};

/* The parts of a command's help that list options, in order: a title, and
 * the width of the option column (a wider option takes two spaces more). */
static const struct part_text {
    const char *title;
    size_t width;
} part_text[PART__COUNT] = {
    [PART_MAIN] = {NULL, 12},
    [PART_SAMPLING] = {"Past the exact engine's limits, estimate instead:", 12},
    [PART_BOONS] = {"Boons and banes of a Double Down roll (dd()), from your game's tables:",
                   21},
};

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

/* "--seed S": the option with its value's name. */
static void option_words(const option_spec *s, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "");
}

/* "--max-dice N": the option of one library limit. */
static void limit_words(const option_spec *s, alea_limit l, char *out, size_t size)
{
    snprintf(out, size, "%s%s %s", s->name, alea_limit_name(l),
             limit_is_bytes(l) ? "BYTES" : "N");
}

/* The rows of the Limits part, each library limit in place of the row of
 * ARG_LIMIT: option, default, what it counts. */
static void print_limits(FILE *f, unsigned commands)
{
    /* The option column is as wide as its widest entry (--max-breakdown
     * BYTES), and the text wraps under its own first line. */
    int ow = 18;
    for (size_t i = 0; i < option_count; i++) {
        const option_spec *s = &option_table[i];
        char opt[48];
        if (s->part != PART_LIMITS || !(s->commands & commands))
            continue;
        for (int k = 0; k < (s->kind == ARG_LIMIT ? ALEA_LIMIT__COUNT : 1); k++) {
            alea_limit l = (alea_limit)k;
            if (s->kind == ARG_LIMIT)
                limit_words(s, l, opt, sizeof opt);
            else
                option_words(s, opt, sizeof opt);
            ow = (int)strlen(opt) > ow ? (int)strlen(opt) : ow;
        }
    }
    size_t indent = 2 + (size_t)ow + 1 + 9 + 2;
    fprintf(f, "Limits (%s):\n  %-*s %9s  %s\n",
            commands == SERVE ? "each request" : "any command", ow, "option", "default",
            "what it counts");
    for (size_t i = 0; i < option_count; i++) {
        const option_spec *s = &option_table[i];
        char opt[48], def[32];
        if (s->part != PART_LIMITS || !(s->commands & commands))
            continue;
        if (s->kind != ARG_LIMIT) {
            option_words(s, opt, sizeof opt);
            if (s->shown_default == 0)
                snprintf(def, sizeof def, "none");
            else
                snprintf(def, sizeof def, "%g", s->shown_default);
            fprintf(f, "  %-*s %9s  ", ow, opt, def);
            put_wrapped(f, indent, s->help);
            continue;
        }
        for (int k = 0; k < ALEA_LIMIT__COUNT; k++) {
            alea_limit l = (alea_limit)k;
            int64_t d = alea_limit_default(l);
            limit_words(s, l, opt, sizeof opt);
            if (limit_is_bytes(l) && d >= 1048576 && d % 1048576 == 0)
                snprintf(def, sizeof def, "%" PRId64 "M", d / 1048576);
            else
                snprintf(def, sizeof def, "%" PRId64, d);
            fprintf(f, "  %-*s %9s  ", ow, opt, def);
            put_wrapped(f, indent, alea_limit_what(l));
        }
    }
    fputs("  BYTES takes a k, M or G suffix; a value above a limit's maximum is\n"
          "  lowered to it.\n", f);
}

void help_main(FILE *f)
{
    fprintf(f, "alea %s -- roll tabletop dice, or compute their exact odds\n\n",
            alea_version());
    fputs("Usage:\n"
          "  alea                          at a terminal: an interactive session\n"
          "  alea EXPR...                  roll each expression (as 'alea roll')\n",
          f);
    for (int c = 0; c < CMD__COUNT; c++)
        fprintf(f, "  alea %s\n", command_text[c].usage);
    fputs("  alea help [COMMAND]           this text, or a command's (also COMMAND --help)\n"
          "  alea help syntax              the dice language on one screen\n"
          "  alea --version\n"
          "\n"
          "Commands:\n",
          f);
    for (int c = 0; c < CMD__COUNT; c++)
        fprintf(f, "  %-9s %s\n", command_names[c], command_text[c].summary);
    fputs("\n"
          "In the session each line is rolled (an empty line rolls it again); :dist,\n"
          ":compare, :table, :fairness (the session's rolls judged), :seed and :help\n"
          "do the rest. Breakdowns are in colour on a terminal, unless NO_COLOR is set.\n"
          "\n"
          "Without EXPR, roll and dist read standard input when it is not a terminal:\n"
          "one expression per line, each answered in turn (blank lines are skipped).\n"
          "A bad line is reported on stderr and the others go on; the exit status is\n"
          "1 if any line failed. A line longer than the source limit gets its error.\n"
          "\n",
          f);
    print_limits(f, ANY);
    fputs("\n"
          "Examples:\n"
          "  alea 4d6kh3                      roll 4d6, keep the highest 3\n"
          "  alea roll -n 6 --seed 7 4d6kh3   six rolls, the same every time\n"
          "  alea '1d20 + 5' 2d6+3            attack, then damage\n"
          "  alea dist 3d6                    the odds of every total\n"
          "  alea dist --at-least '1d20+7'    the odds to reach each number\n"
          "  alea compare 2d20kh1 1d20 2d20kl1\n"
          "\n"
          "Quote an expression with shell characters ('3d6!'), and each one to roll\n"
          "several ('d20 +1d' 2d6); unquoted words that do not each form an expression\n"
          "are one (alea 1d20 + 5).\n"
          "The dice language: alea help syntax, and the LANGUAGE section of man alea.\n",
          f);
}

/* One option's line (and its continuation lines) in part p of the help. */
static void put_option(FILE *f, const option_spec *s, help_part p, const char *text)
{
    char words[48];
    size_t width = part_text[p].width;
    option_words(s, words, sizeof words);
    size_t len = strlen(words);
    fprintf(f, "  %s%*s", words, (int)(len < width ? width - len : 2), "");
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1)
        fprintf(f, "%.*s\n%*s", (int)(nl - text), text, (int)(width + 2), "");
    fprintf(f, "%s\n", text);
}

void help_command(command cmd, FILE *f)
{
    fprintf(f, "Usage: alea %s\n%s\n", command_text[cmd].usage, command_text[cmd].about);
    for (int p = PART_MAIN; p < PART_LIMITS; p++) {
        int listed = 0;
        for (size_t i = 0; i < option_count; i++) {
            const option_spec *s = &option_table[i];
            help_part part = s->part;
            const char *text = s->help;
            if (!(s->commands & (1u << cmd)))
                continue;
            if (s->differs.text && s->differs.cmd == cmd) {
                part = s->differs.part;
                text = s->differs.text;
            }
            if (part != (help_part)p)
                continue;
            if (!listed++ && part_text[p].title)
                fprintf(f, "%s\n", part_text[p].title);
            put_option(f, s, part, text);
        }
        if (listed)
            fputc('\n', f);
    }
    print_limits(f, cmd == CMD_SERVE ? SERVE : ANY);
}

/* ---- alea help syntax ---------------------------------------------------- */

/*
 * The dice language on one screen (80 columns, 24 lines). Each row is an
 * example column (expressions split by two spaces, cols 3 to 32) and what
 * it shows; tests/cli/run.sh runs every example through dist and roll.
 * docs/alea.1's LANGUAGE section says the same.
 */
static const char syntax_text[] =
    "The dice language at a glance (man alea: LANGUAGE; every example runs)\n"
    "  3d6  d20+5  2d6*2-1  dF       dice, arithmetic (+ - * / ^ %), Fudge dice\n"
    "  4d6kh3  2d20kl1  4d6dl1       keep highest / keep lowest / drop lowest\n"
    "  3d6!  3d6!!  3d10!>=9         explode, compound, explode on 9 or more\n"
    "  3d6r1  4d6r<3  1d8ro8         reroll 1s, reroll below 3, reroll once\n"
    "  10d10>=8  10d10>=8f1          count successes (f1: minus each 1)\n"
    "  4d4min2  1d6max3  4d6u        clamp each die; no face repeated\n"
    "  {4d6+3, 2d8}kh1  2d6 <> 7     best of a group; comparisons are 1 or 0\n"
    "  best(2, 1d20+5)  max(1d6, 3)  best worst min max abs pow sign of values\n"
    "  let a = d20 in a + a          a name: one roll, the same value twice\n"
    "  (d6) > 3 and not (d4) = 1     and, or, not: true is not 0; they give 1 or 0\n"
    "  if(d6>3, d8, 0)  sum(3, d6)   d8 when d6 > 3, else 0; 3 rolls of d6 added\n"
    "  3d6 [fire] + 1d4 # a comment  labels name terms; # or // comments\n"
    "Game mechanics:\n"
    "  d20 +1d  d20 -1d  d20 adv     bonus/penalty d20: roll more, keep best/worst\n"
    "  2d10 +3B -1B                  boons/banes: extra d10s, keep high/low (max 5)\n"
    "  d0 +1B  d0 -1B                the null die: 0; 1 with a boon, -1 a bane\n"
    "  2d6 +1 DICE  2d6 -1 DICE      +/- DICE: extra dice, keep highest / lowest\n"
    "  event(d12 + d14 + d18 + d20)  critical pool: 1s cancel criticals, the\n"
    "                                rest explode; most 1s: critical failure\n"
    "  tier(d8, +2)                  the dice tier ladder, two steps up: d12\n"
    "  dd(6, 14, always)             Double Down: d20+6 vs 14, always a second d20\n"
    "  6 x 4d6kh3                    repeat: six rolls, a line each\n"
    "Quote ! < > ( ) { } for the shell, and each expression to roll several.\n";

void help_syntax(FILE *f)
{
    fputs(syntax_text, f);
}
