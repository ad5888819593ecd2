/*
 * main.c -- the alea command line: roll expressions, print their exact
 * distributions, compare several side by side. This file picks the
 * command and runs it; cli.h lists the others, in the order they run.
 *
 * It uses only the public API (<alea.h>) and the C library. Results go to
 * stdout, usage errors and failures to stderr. Exit status: 0 success,
 * 1 a bad expression or any library error (limits included), 2 bad usage,
 * 3 alea fairness's verdict "not fair".
 */
#define _POSIX_C_SOURCE 200809L /* SIGPIPE, isatty */

#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* isatty */

const char *const command_names[CMD__COUNT] = {"roll", "dist", "compare", "serve", "table",
                                                "fairness", "policy"};

/* What runs each command, on its expressions compiled (serve compiles its
 * requests' own: run calls it before). */
static int (*const command_run[CMD__COUNT])(alea_ctx *, const options *, alea_expr **) = {
    [CMD_ROLL] = cmd_roll, [CMD_DIST] = cmd_dist, [CMD_COMPARE] = cmd_compare,
    [CMD_POLICY] = cmd_policy};

/*
 * Runs command cmd (has_cmd: named, not the bare "alea EXPR") on the words
 * after it: parses them, sets the context's limits, the seed and the time,
 * then runs the command on its expressions, on standard input's lines, or
 * as the interactive session. Returns the exit status.
 */
static int run(command cmd, int has_cmd, int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    /* --multipliers default: success and critical success earn the table */
    o.boons.multiplier[2] = o.boons.multiplier[3] = 1;
    o.n = 1;
    o.argc = argc;
    o.argv = argv;
    o.cumul = SHOW_EXACT;
    const char *no_color = getenv("NO_COLOR");
    o.color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
    timer tm = {0, {0, 0}, TIME_LIMIT_DEFAULT, {0, 0}};
    o.timer = &tm;
    if (cmd == CMD_SERVE)
        serve_defaults(&o);
    report_use_timer(&tm);
    o.exprs = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *o.exprs);
    if (!o.exprs)
        return out_of_memory();

    int rc = parse_args(cmd, has_cmd, argc, argv, &o);
    if (rc == EXIT_OK && o.help) {
        help_command(cmd, stdout);
        free(o.exprs);
        free(o.joined);
        return EXIT_OK;
    }
    if (rc != EXIT_OK) {
        free(o.exprs);
        free(o.joined);
        return rc;
    }

    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr **ex = calloc(o.nexprs ? o.nexprs : 1, sizeof *ex);
    if (cmd == CMD_COMPARE) /* its columns may be named: "adv=2d20kh1" */
        o.names = calloc(o.nexprs ? o.nexprs : 1, sizeof *o.names);
    if (!ctx || !ex || (cmd == CMD_COMPARE && !o.names)) {
        rc = out_of_memory();
        goto done;
    }
    if (!apply_limits(ctx, &o))
        rc = o.exact && !alea_ctx_exact(ctx)
                 ? usage_error(cmd, has_cmd, "--exact: %s", alea_ctx_error(ctx))
                 : usage_error(cmd, has_cmd, "--tail: %s is outside the accepted range "
                                             "[1e-300, 1e-3]", o.tail_text);
    if (rc == EXIT_OK && cmd == CMD_SERVE) { /* the limits checked; a context per request */
        rc = cmd_serve(&o);
        goto done;
    }
    if (tm.ms > 0 || tm.cmd_s > 0)
        alea_ctx_set_interrupt(ctx, timer_expired, &tm);
    command_arm(&tm);
    if (o.seed_set)
        alea_ctx_seed(ctx, o.seed);
    if (rc == EXIT_OK && o.repl) {
        rc = cmd_repl(ctx, &o);
        goto done;
    }
    if (rc == EXIT_OK && cmd == CMD_TABLE) { /* its words are an expression and names */
        rc = cmd_table(ctx, &o);
        goto done;
    }
    if (rc == EXIT_OK && cmd == CMD_FAIRNESS) { /* its word is a file */
        rc = cmd_fairness(ctx, &o);
        goto done;
    }
    if (rc == EXIT_OK && o.from_stdin) {
        rc = cmd_lines(ctx, &o, cmd, has_cmd);
        goto done;
    }
    int joined = 0;
    if (rc == EXIT_OK && !join_arguments(ctx, &o, &joined))
        rc = out_of_memory();
    if (rc == EXIT_OK && (cmd == CMD_DIST || cmd == CMD_POLICY) && o.nexprs > 1)
        rc = usage_error(cmd, has_cmd, "%s takes one expression (quote it if it has "
                                       "spaces; 'alea compare' takes several)",
                         command_names[cmd]);
    if (rc == EXIT_OK) {
        rc = compile_all(ctx, &o, ex);
        if (rc == EXIT_FAIL && joined)
            fprintf(stderr, "alea: hint: the arguments do not each form an expression, so "
                            "they were read as one; quote each expression to %s several, "
                            "as in alea %s \"d20 +1d\" \"2d6\"\n",
                    command_names[cmd], command_names[cmd]);
    }
    if (rc == EXIT_OK)
        rc = command_run[cmd](ctx, &o, ex);

done:
    if (ex)
        for (size_t i = 0; i < o.nexprs; i++)
            alea_expr_free(ex[i]);
    free(ex);
    free(o.names);
    alea_ctx_free(ctx);
    free(o.exprs);
    free(o.joined);
    return rc;
}

static int find_command(const char *s, command *out)
{
    for (int c = 0; c < CMD__COUNT; c++)
        if (!strcmp(s, command_names[c])) {
            *out = (command)c;
            return 1;
        }
    return 0;
}

/* ---- did you mean -------------------------------------------------------- */

/* The command (or `other`) nearest to a mistyped word, or NULL; s holds it. */
static const char *near_command(suggestion *s, const char *word, const char *other)
{
    suggest_start(s, word);
    for (int c = 0; c < CMD__COUNT; c++)
        suggest_offer(s, command_names[c]);
    suggest_offer(s, other);
    return suggest_result(s);
}

/* "alea help compar": the help topics are the commands and "syntax". */
static int unknown_topic(const char *word)
{
    suggestion s;
    const char *near = near_command(&s, word, "syntax");
    if (near)
        return usage_error(CMD_ROLL, 0, "help: unknown command '%s'; did you mean 'alea help "
                                        "%s'?", word, near);
    return usage_error(CMD_ROLL, 0, "help: unknown command '%s' (the commands: roll, dist, "
                                    "compare, serve, table, fairness, policy; or syntax)", word);
}

/* "alea rol 4d6": a first word one edit from a command, that the language
 * does not read as an expression, is a mistyped command. 1 when reported. */
static int mistyped_command(const char *word, int *rc)
{
    suggestion s;
    const char *near = near_command(&s, word, "help");
    if (!near)
        return 0;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = NULL;
    int expr = !ctx || alea_expr_compile(ctx, word, strlen(word), &e) == ALEA_OK;
    alea_expr_free(e);
    alea_ctx_free(ctx);
    if (expr)
        return 0;
    *rc = usage_error(CMD_ROLL, 0, "'%s' is neither a command nor an expression; did you "
                                   "mean 'alea %s'?", word, near);
    return 1;
}

/* Flushes stdout and reports a write error; a reader that went away (EPIPE,
 * as in "alea roll -n 1000 1d6 | head -1") is not an error. */
static int finish_output(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (errno == EPIPE)
        return rc;
    fprintf(stderr, "alea: write error: %s\n", strerror(errno));
    return EXIT_FAIL;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    command cmd = CMD_ROLL;
    int rc;

#ifdef SIGPIPE
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is seen as EPIPE instead */
#endif
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    heap_prepare();

    if (argc < 2) {
        rc = run(CMD_ROLL, 0, 0, argv + 1); /* expressions on stdin, if piped */
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        help_main(stdout);
        rc = EXIT_OK;
    } else if (!strcmp(argv[1], "--version")) {
        printf("alea %s\n", alea_version());
        rc = EXIT_OK;
    } else if (!strcmp(argv[1], "help")) {
        if (argc == 2) {
            help_main(stdout);
            rc = EXIT_OK;
        } else if (argc == 3 && !strcmp(argv[2], "syntax")) {
            help_syntax(stdout);
            rc = EXIT_OK;
        } else if (argc == 3 && find_command(argv[2], &cmd)) {
            help_command(cmd, stdout);
            rc = EXIT_OK;
        } else if (argc == 3) {
            rc = unknown_topic(argv[2]);
        } else {
            rc = usage_error(CMD_ROLL, 0, "help takes at most one command");
        }
    } else if (find_command(argv[1], &cmd)) {
        rc = run(cmd, 1, argc - 2, argv + 2);
    } else if (mistyped_command(argv[1], &rc)) {
        /* reported */
    } else {
        rc = run(CMD_ROLL, 0, argc - 1, argv + 1); /* a bare expression */
    }
    return finish_output(rc);
}
