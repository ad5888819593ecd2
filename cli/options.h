/*
 * options.h -- the option table: one row per option. The parser
 * (options.c) reads argv through it, and help.c prints it as --help; the
 * completion (scripts/completion.bash) and the man page are checked against
 * that help by tests/cli/run.sh.
 */
#ifndef ALEA_CLI_OPTIONS_H
#define ALEA_CLI_OPTIONS_H

#include "cli.h"

/* The commands that take an option. */
enum {
    ROLL = 1u << CMD_ROLL,
    DIST = 1u << CMD_DIST,
    COMPARE = 1u << CMD_COMPARE,
    ANY = ROLL | DIST | COMPARE | (1u << CMD_TABLE) | (1u << CMD_FAIRNESS) | (1u << CMD_POLICY),
    SERVE = 1u << CMD_SERVE, /* not in ANY: the rows it takes name it */
    TABLE = 1u << CMD_TABLE, /* in ANY for the limits; the rest name it */
    FAIRNESS = 1u << CMD_FAIRNESS, /* in ANY for the limits and --dialect */
    POLICY = 1u << CMD_POLICY      /* in ANY for the limits and --dialect */
};

typedef enum arg_kind {
    ARG_NONE,  /* a flag */
    ARG_INT,   /* a decimal integer in [lo, hi] */
    ARG_LIMIT, /* one option per limit of the library, "--max-" and its
                  name: an integer in [lo, hi], with a k, M or G suffix for
                  those that count bytes */
    ARG_TEXT   /* read by the row's setter: a list, a probability, a seed */
} arg_kind;

/* Where a command's help lists an option. */
typedef enum help_part {
    PART_NONE,     /* nowhere: --help, which the usage lines name */
    PART_MAIN,     /* under the command's description */
    PART_SAMPLING, /* "Past the exact engine's limits, estimate instead:" */
    PART_BOONS,    /* "Boons and banes of a dd() roll ..." */
    PART_LIMITS,   /* "Limits (any command):", with the default */
    PART__COUNT
} help_part;

/* An option's value, as given and as read. */
typedef struct option_value {
    const char *text;
    int64_t number;    /* ARG_INT and ARG_LIMIT */
    alea_limit limit;  /* ARG_LIMIT: which one */
} option_value;

/* Stores a value in o; 0 when it is not acceptable. */
typedef int option_setter(options *o, const option_value *v);

/* How one command's help lists an option. */
typedef struct option_help {
    command cmd;
    help_part part;
    const char *text; /* lines split by '\n' */
} option_help;

typedef struct option_spec {
    const char *name;   /* "--seed"; for ARG_LIMIT, "--max-" */
    const char *alias;  /* "-h", or NULL */
    const char *arg;    /* the value's name in the help ("S"); NULL for a flag */
    arg_kind kind;
    int64_t lo, hi;     /* ARG_INT, ARG_LIMIT: the accepted range */
    unsigned commands;  /* ROLL | DIST | COMPARE: which take it */
    /* The action: set, or else the field at offset `at` in options (an int
     * set to 1 for a flag, an int64_t for a number). */
    option_setter *set;
    size_t at;
    /* A bad value: "NAME: 'VALUE' is not <bad>"; for a flag whose setter
     * refuses it, the whole message. */
    const char *bad;
    /* The help: the part of each command's help that lists it, and its
     * text (PART_LIMITS: one paragraph, wrapped; else lines split by '\n');
     * `differs` for the one command whose help reads otherwise. */
    help_part part;
    const char *help;
    option_help differs;
    double shown_default; /* PART_LIMITS: the default shown (0: "none") */
} option_spec;

extern const option_spec option_table[];
extern const size_t option_count;

/* Whether a limit counts bytes (its option takes a k, M or G suffix). */
int limit_is_bytes(alea_limit l);

#endif
