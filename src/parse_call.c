/*
 * parse_call.c -- calls: the built-ins (min, max, abs, best, worst) and the
 * game mechanics of mech/list.c, looked up by name in that order; the
 * words of the language, which the lexer keeps whole; and the interface
 * the mechanics parse their arguments with (parse.h).
 */
#include "parser.h"

#include "mech.h"

/* ---- what the mechanics use to parse their calls (parse.h) --------------- */

alea_ctx *alea__parse_ctx(const parser *p)
{
    return p->ctx;
}

int alea__parse_print_only(const parser *p)
{
    return p->print_only;
}

alea_status alea__parse_open(parser *p, const char *what)
{
    const token *open = peek(p);
    alea_status st = expect(p, T_LPAREN, what);
    return st == ALEA_OK ? enter(p, open) : st;
}

alea_status alea__parse_close(parser *p, const char *what, size_t *close_end)
{
    const token *close = peek(p);
    alea_status st = expect(p, T_RPAREN, what);
    if (st != ALEA_OK)
        return st;
    leave(p);
    if (close_end)
        *close_end = close->end;
    return ALEA_OK;
}

alea_status alea__parse_arg(parser *p, const node **out)
{
    return alea__p_expr(p, out);
}

int alea__parse_comma(parser *p)
{
    return accept(p, T_COMMA);
}

alea_status alea__parse_expect_comma(parser *p, const char *what)
{
    return expect(p, T_COMMA, what);
}

int alea__parse_cmp(parser *p, uint8_t *op)
{
    switch (peek(p)->kind) {
    case T_EQ: *op = CMP_EQ; break;
    case T_NE: *op = CMP_NE; break;
    case T_LT: *op = CMP_LT; break;
    case T_LE: *op = CMP_LE; break;
    case T_GT: *op = CMP_GT; break;
    case T_GE: *op = CMP_GE; break;
    default: return 0;
    }
    advance(p);
    return 1;
}

size_t alea__parse_here(const parser *p)
{
    return peek(p)->end;
}

void *alea__parse_alloc(parser *p, size_t size)
{
    return p_alloc(p, size);
}

alea_status alea__parse_node(parser *p, node_kind kind, size_t start, size_t end, node **out)
{
    return new_node(p, kind, start, end, out);
}

alea_status alea__parse_sum(parser *p, const node *const *items, uint32_t n, size_t start,
                            size_t end, const node **out)
{
    alea_status st;
    chainbuf c = {0};
    for (uint32_t i = 0; i < n; i++)
        if ((st = chain_push(p, &c, items[i], OP_ADD)) != ALEA_OK)
            return st;
    if (n == 1) {
        *out = items[0];
        return ALEA_OK;
    }
    node *sum;
    if ((st = new_node(p, N_SUM, start, end, &sum)) != ALEA_OK)
        return st;
    sum->u.chain.items = c.items;
    sum->u.chain.ops = c.ops;
    sum->u.chain.n = c.n;
    *out = sum;
    return ALEA_OK;
}

int alea__parse_plain_dice(const node *n, int64_t *count, int64_t *sides)
{
    *count = *sides = 0;
    if (n->kind != N_DICE)
        return 0;
    const pool *pl = n->u.pool;
    if (pl->count_expr || pl->sides_expr || pl->die.kind != FACES_RANGE || pl->die.style != DIE_PLAIN ||
        pl->die.lo != 1 || pl->has_reroll || pl->explode || pl->nkeeps || pl->has_success ||
        pl->extra_kind)
        return 0;
    *count = pl->count;
    *sides = pl->die.hi;
    return 1;
}

alea_status alea__parse_pool_terms(parser *p, const node *n, const char *fname,
                                   const node *const **items, uint32_t *nitems)
{
    int64_t c, s;
    if (n->kind == N_DICE && alea__parse_plain_dice(n, &c, &s)) {
        const node **one = p_alloc(p, sizeof *one);
        if (!one)
            return alea__nomem(p->ctx);
        one[0] = n;
        *items = one;
        *nitems = 1;
        return ALEA_OK;
    }
    if (n->kind == N_SUM) {
        uint32_t i;
        for (i = 0; i < n->u.chain.n; i++)
            if (n->u.chain.ops[i] != OP_ADD || !alea__parse_plain_dice(n->u.chain.items[i], &c, &s))
                break;
        if (i == n->u.chain.n) {
            *items = n->u.chain.items;
            *nitems = n->u.chain.n;
            return ALEA_OK;
        }
    }
    return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                       "%s() takes a pool of plain dice added together, such as "
                       "d12 + d14 + d18 + d20 (byte %u)",
                       fname, (unsigned)n->start);
}

alea_status alea__parse_dice(parser *p, int64_t count, int64_t sides, size_t start, size_t end,
                             const node **out)
{
    pool *pl = p_alloc(p, sizeof *pl);
    node *n;
    alea_status st;
    if (!pl)
        return alea__nomem(p->ctx);
    memset(pl, 0, sizeof *pl);
    pl->count = count;
    pl->count_implicit = count == 1;
    pl->die.kind = FACES_RANGE;
    pl->die.style = DIE_PLAIN;
    pl->die.lo = 1;
    pl->die.hi = sides;
    if ((st = new_node(p, N_DICE, start, end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    *out = n;
    return ALEA_OK;
}

int alea__parse_const(const node *n, int64_t *v)
{
    int64_t a, b;
    switch (n->kind) {
    case N_NUM:
        *v = n->u.num;
        return 1;
    case N_NEG:
        return alea__parse_const(n->u.un.a, &a) && !alea__sub_ovf(0, a, v);
    case N_SUM:
    case N_PROD:
        if (!alea__parse_const(n->u.chain.items[0], &a))
            return 0;
        for (uint32_t i = 1; i < n->u.chain.n; i++) {
            if (!alea__parse_const(n->u.chain.items[i], &b) ||
                alea__arith(n->u.chain.ops[i], a, b, &a) != ARITH_OK)
                return 0;
        }
        *v = a;
        return 1;
    default:
        return 0;
    }
}

alea_status alea__parse_int(parser *p, const char *fname, const char *what, int64_t lo,
                            int64_t hi, int64_t *v)
{
    const node *n = NULL;
    alea_status st;
    *v = 0;
    if ((st = alea__p_expr(p, &n)) != ALEA_OK)
        return st;
    if (!alea__parse_const(n, v))
        return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "%s() needs a fixed number for its %s, not dice (byte %u)", fname,
                           what, (unsigned)n->start);
    if (*v < lo || *v > hi)
        return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "%s() %s must be between %lld and %lld, not %lld (byte %u)", fname,
                           what, (long long)lo, (long long)hi, (long long)*v,
                           (unsigned)n->start);
    return ALEA_OK;
}

static int same_word(const char *s, size_t n, const char *w);

int alea__p_is_word(const parser *p, const token *t, const char *w)
{
    return t->kind == T_NAME && same_word(p->src + t->start, t->end - t->start, w);
}

alea_status alea__parse_word(parser *p, const char *const *choices, const char *expected,
                             int *index)
{
    const token *t = peek(p);
    for (int i = 0; choices[i]; i++)
        if (alea__p_is_word(p, t, choices[i])) {
            advance(p);
            *index = i;
            return ALEA_OK;
        }
    return err_at(p, t, expected);
}

/* ---- calls ----------------------------------------------------------------- */


/* The built-in calls: the node each makes and its number of arguments. */
static const struct {
    const char *name;
    uint8_t kind, nargs;
} builtins[] = {
    {"min", N_MIN, 2}, {"max", N_MAX, 2}, {"abs", N_ABS, 1}, {"best", N_BEST, 2},
    {"worst", N_WORST, 2},
};

/* Calls that are spellings of the operators, as rpg-dice-roller's math
 * writes them: pow(a, b) is a ^ b; sign(a) is max(min(a, 1), -1), alea's
 * values being whole (parse_spelled). */
static const struct {
    const char *name;
    uint8_t nargs;
} spelled[] = {
    {"pow", 2}, {"sign", 1},
};

/* Roundings of a division: floor(a / b) is a / b, ceil a /^ b, round
 * a /~ b (or, where the dialect's round is JavaScript's, roundhalfup),
 * trunc (towards zero) and roundhalfup divisions of their own. */
static const struct {
    const char *name;
    uint8_t op;
} rounders[] = {
    {"floor", OP_DIV}, {"ceil", OP_DIVUP}, {"round", OP_DIVNEAR}, {"trunc", OP_DIVTRUNC},
    {"roundhalfup", OP_DIVHALFUP},
};

/* Whether s[0..n) is the lowercase word w, matched without case. */
static int same_word(const char *s, size_t n, const char *w)
{
    size_t i;
    for (i = 0; i < n; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        if (w[i] == '\0' || c != w[i])
            return 0;
    }
    return w[i] == '\0';
}

static int in_words(const char *s, size_t n, const char *const *words)
{
    for (size_t i = 0; words && words[i]; i++)
        if (same_word(s, n, words[i]))
            return 1;
    return 0;
}

int alea__parse_is_word(const alea__lang *lang, const char *s, size_t n)
{
    if (same_word(s, n, "repeat"))
        return 1;
    for (size_t b = 0; b < sizeof builtins / sizeof builtins[0]; b++)
        if (same_word(s, n, builtins[b].name))
            return 1;
    for (size_t r = 0; r < sizeof rounders / sizeof rounders[0]; r++)
        if (same_word(s, n, rounders[r].name))
            return 1;
    for (size_t r = 0; r < sizeof spelled / sizeof spelled[0]; r++)
        if (same_word(s, n, spelled[r].name))
            return 1;
    /* The extra dice's words; single letters ("+2B") stay the lexer's
     * modifier letters, which the parser reads by their text. */
    for (const alea__extra *const *x = lang->extras; *x; x++)
        if ((n > 1 && in_words(s, n, (*x)->after)) || in_words(s, n, (*x)->ranks))
            return 1;
    for (const alea__mech *const *m = lang->mechs; *m; m++)
        if (((*m)->name && same_word(s, n, (*m)->name)) || in_words(s, n, (*m)->words))
            return 1;
    return 0;
}

alea_status alea__p_round_last(parser *p, const node *a, uint8_t op, size_t start, size_t end,
                               const node **out)
{
    uint32_t k = a->kind == N_PROD ? a->u.chain.n - 1 : 0;
    if (k == 0 || a->u.chain.ops[k] != p->dl->slash) {
        *out = a; /* a whole number: nothing to round */
        return ALEA_OK;
    }
    node *n;
    uint8_t *ops = p_alloc(p, a->u.chain.n);
    if (!ops)
        return alea__nomem(p->ctx);
    alea_status st = new_node(p, N_PROD, start, end, &n);
    if (st != ALEA_OK)
        return st;
    memcpy(ops, a->u.chain.ops, a->u.chain.n);
    ops[k] = op;
    *n = *a; /* a copy: the tree is never edited */
    n->start = (uint32_t)start;
    n->end = (uint32_t)end;
    n->u.chain.ops = ops;
    *out = n;
    return ALEA_OK;
}

/*
 * round = ("floor" | "ceil" | "round" | "trunc") "(" expr ")"
 * The expression is a division, whose last '/' takes the rounding
 * ("trunc(1d6 * 3 / 2)"); anything else is whole already and stays as is
 * ("floor(2 ^ 3)", "floor(7 % 3)", "floor(7 /^ 2)").
 */
static alea_status parse_rounding(parser *p, const token *nt, uint8_t op, const node **out)
{
    alea_status st;
    if (!at(p, T_LPAREN))
        return err_at(p, peek(p), "'(' after the function name");
    const token *open = advance(p);
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    const node *a;
    if ((st = alea__p_expr(p, &a)) != ALEA_OK)
        return st;
    if (!at(p, T_RPAREN))
        return err_at(p, peek(p), "')' (this function takes one division)");
    const token *close = advance(p);
    leave(p);
    if (op == OP_DIVNEAR && p->dl->round_half_up)
        op = OP_DIVHALFUP;
    return alea__p_round_last(p, a, op, nt->start, close->end, out);
}

/* ---- repeat: the whole expression rolled again ------------------------------ */

/* A repeat node of n rolls of a, spanning [start, end). n was checked to be
 * between 1 and the most the DICE limit allows: each roll counts as a die
 * (roll.c), so the context's limit bounds it when rolled. */
static alea_status repeat_node(parser *p, const node *a, int64_t n, int x, size_t start,
                               size_t end, const node **out)
{
    node *r;
    alea_status st = new_node(p, N_REPEAT, start, end, &r);
    if (st != ALEA_OK)
        return st;
    r->op = (uint8_t)x;
    r->u.rep.a = a;
    r->u.rep.n = n;
    *out = r;
    return ALEA_OK;
}

/* "the whole expression": what a repeat written elsewhere is told. */
static alea_status repeat_inside(parser *p, size_t start, size_t end)
{
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, start, end,
                       "a repeat rolls the whole expression again, so it cannot be part of "
                       "another (byte %zu): write it alone, as in 6 x 4d6kh3 or "
                       "repeat(4d6kh3, 6)",
                       start);
}

/* A count of repeats in [1, the DICE limit's maximum]. */
static alea_status repeat_count(parser *p, const token *t, int64_t n)
{
    if (n >= 1 && n <= alea_limit_max(ALEA_LIMIT_DICE))
        return ALEA_OK;
    return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, t->end,
                       "a repeat needs between 1 and %lld rolls, not %lld (byte %u)",
                       (long long)alea_limit_max(ALEA_LIMIT_DICE), (long long)n,
                       (unsigned)t->start);
}

/* repeat = "repeat" "(" expr "," NUM ")"     the whole expression only */
static alea_status parse_repeat(parser *p, const token *nt, const node **out)
{
    alea_status st;
    int whole = nt == p->t && p->depth == 0;
    const node *a;
    if ((st = alea__parse_open(p, "'(' after repeat")) != ALEA_OK ||
        (st = alea__p_expr(p, &a)) != ALEA_OK)
        return st;
    if ((st = expect(p, T_COMMA, "',' and the number of rolls, as in repeat(4d6kh3, 6)")) !=
        ALEA_OK)
        return st;
    const token *t = peek(p);
    if (t->kind != T_NUM || peek_at(p, 1)->kind != T_RPAREN)
        return err_at(p, t->kind == T_NUM ? peek_at(p, 1) : t,
                      "a whole number of rolls and ')', as in repeat(4d6kh3, 6)");
    advance(p);
    const token *close = advance(p);
    leave(p);
    if (!whole || !at(p, T_EOF))
        return repeat_inside(p, nt->start, close->end);
    if ((st = repeat_count(p, t, t->num)) != ALEA_OK)
        return st;
    return repeat_node(p, a, t->num, 0, nt->start, close->end, out);
}

/* "6 x" where it is not the whole expression's start: refused, by name. */
alea_status alea__p_repeat_x(parser *p, const token *num)
{
    return repeat_inside(p, num->start, peek(p)->end);
}

/*
 * program = NUM "x" expr | expr     "6 x 4d6kh3" (or "6x4d6"): the whole
 * expression rolled NUM times; "x" after dice ("4d6x") is a modifier's.
 */
alea_status alea__p_program(parser *p, const node **out)
{
    const token *x = peek_at(p, 1); /* where a text has names, "x" lexes as one */
    if (!at(p, T_NUM) || !(x->kind == T_X || (x->kind == T_IDENT && x->end - x->start == 1 &&
                                              (p->src[x->start] | 0x20) == 'x')))
        return alea__p_expr(p, out);
    const token *num = advance(p);
    advance(p); /* 'x' */
    alea_status st;
    const node *a;
    if ((st = repeat_count(p, num, num->num)) != ALEA_OK || (st = alea__p_expr(p, &a)) != ALEA_OK)
        return st;
    return repeat_node(p, a, num->num, 1, num->start, a->end, out);
}

/*
 * call = NAME "(" expr { "," expr } ")"
 * A built-in (min/max/abs/best/worst), else a game mechanic of the list
 * (mech/list.c), which parses its own arguments.
 */
/* A number node of value v at span [start, end). */
static alea_status num_node(parser *p, int64_t v, size_t start, size_t end, const node **out)
{
    node *n;
    alea_status st = new_node(p, N_NUM, start, end, &n);
    if (st == ALEA_OK) {
        n->u.num = v;
        *out = n;
    }
    return st;
}

/* spelled = ("pow" "(" expr "," expr | "sign" "(" expr) ")" */
static alea_status parse_spelled(parser *p, const token *nt, size_t which, const node **out)
{
    alea_status st;
    const node *a[2] = {NULL, NULL};
    if (!at(p, T_LPAREN))
        return err_at(p, peek(p), "'(' after the function name");
    const token *open = advance(p);
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    for (int i = 0; i < spelled[which].nargs; i++)
        if ((i > 0 && (st = expect(p, T_COMMA, "','")) != ALEA_OK) ||
            (st = alea__p_expr(p, &a[i])) != ALEA_OK)
            return st;
    if (!at(p, T_RPAREN))
        return err_at(p, peek(p), spelled[which].nargs == 1
                                      ? "')' (this function takes one argument)"
                                      : "')' (this function takes two arguments)");
    const token *close = advance(p);
    leave(p);
    size_t s0 = nt->start, s1 = close->end;
    node *n;
    if (spelled[which].nargs == 2) { /* pow(a, b): a ^ b */
        const node **items = p_alloc(p, 2 * sizeof *items);
        uint8_t *ops = p_alloc(p, 2);
        if (!items || !ops)
            return alea__nomem(p->ctx);
        items[0] = a[0];
        items[1] = a[1];
        ops[0] = OP_MUL;
        ops[1] = OP_POW;
        if ((st = new_node(p, N_PROD, s0, s1, &n)) != ALEA_OK)
            return st;
        n->u.chain.items = items;
        n->u.chain.ops = ops;
        n->u.chain.n = 2;
        *out = n;
        return ALEA_OK;
    }
    node *lo; /* sign(a): max(min(a, 1), -1) */
    const node *one, *minus_one;
    if ((st = num_node(p, 1, s0, s1, &one)) != ALEA_OK ||
        (st = num_node(p, -1, s0, s1, &minus_one)) != ALEA_OK ||
        (st = new_node(p, N_MIN, s0, s1, &lo)) != ALEA_OK ||
        (st = new_node(p, N_MAX, s0, s1, &n)) != ALEA_OK)
        return st;
    lo->u.bin.a = a[0];
    lo->u.bin.b = one;
    n->u.bin.a = lo;
    n->u.bin.b = minus_one;
    *out = n;
    return ALEA_OK;
}

alea_status alea__p_call(parser *p, const node **out)
{
    const token *nt = advance(p);
    alea_status st;
    size_t b, nb = sizeof builtins / sizeof builtins[0];
    if (alea__p_is_word(p, nt, "repeat"))
        return parse_repeat(p, nt, out);
    for (b = 0; b < nb && !alea__p_is_word(p, nt, builtins[b].name); b++)
        ;
    for (size_t r = 0; b == nb && r < sizeof rounders / sizeof rounders[0]; r++)
        if (alea__p_is_word(p, nt, rounders[r].name))
            return parse_rounding(p, nt, rounders[r].op, out);
    for (size_t r = 0; b == nb && r < sizeof spelled / sizeof spelled[0]; r++)
        if (alea__p_is_word(p, nt, spelled[r].name))
            return parse_spelled(p, nt, r, out);
    if (b == nb) {
        for (const alea__mech *const *m = p->ctx->lang->mechs; *m; m++)
            if ((*m)->name && alea__p_is_word(p, nt, (*m)->name))
                return (*m)->parse(p, nt->start, nt->end, out);
    {
        /* The word as the language spells it: in lower case (a word is at
         * most as long as the longest of the language's words). */
        char word[32];
        size_t n = nt->end - nt->start < sizeof word - 1 ? nt->end - nt->start
                                                         : sizeof word - 1;
        for (size_t i = 0; i < n; i++) {
            char c = p->src[nt->start + i];
            word[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        }
        word[n] = '\0';
        /* A let is a whole expression: inside a sum it needs parentheses. */
        int is_let = strcmp(word, "let") == 0;
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, nt->start, nt->end,
                           "'%s' cannot start a term (byte %u)%s", word, (unsigned)nt->start,
                           is_let ? ": put the let in parentheses, as in 1 + (let a = d6 in a * a)"
                                  : "");
    }
    }
    const char *nm = builtins[b].name;
    node_kind kind = (node_kind)builtins[b].kind;
    int nargs = builtins[b].nargs;
    if (!at(p, T_LPAREN))
        return err_at(p, peek(p), kind == N_ABS ? "'(' after abs" : "'(' after the function name");
    const token *open = advance(p);
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    const node *args[2] = {NULL, NULL};
    int64_t reps = 0;
    for (int i = 0; i < nargs; i++) {
        if (i > 0 && (st = expect(p, T_COMMA, "','")) != ALEA_OK)
            return st;
        if ((kind == N_BEST || kind == N_WORST) && i == 0) {
            const token *t = peek(p);
            if (t->kind != T_NUM || peek_at(p, 1)->kind != T_COMMA)
                return err_at(p, t->kind == T_NUM ? peek_at(p, 1) : t,
                              "a whole number of repetitions and ',', as in best(2, 1d20)");
            advance(p);
            if (t->num < 1 || t->num > alea_limit_max(ALEA_LIMIT_DICE))
                return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, t->end,
                                   "%s() needs between 1 and %lld repetitions, not %lld "
                                   "(byte %u)",
                                   nm, (long long)alea_limit_max(ALEA_LIMIT_DICE),
                                   (long long)t->num, (unsigned)t->start);
            reps = t->num;
            continue;
        }
        if ((st = alea__p_expr(p, &args[i])) != ALEA_OK)
            return st;
    }
    if (!at(p, T_RPAREN))
        return err_at(p, peek(p),
                      nargs == 1 ? "')' (abs takes one argument)"
                                 : "')' (this function takes two arguments)");
    const token *close = advance(p);
    leave(p);
    node *n;
    if ((st = new_node(p, kind, nt->start, close->end, &n)) != ALEA_OK)
        return st;
    if (kind == N_BEST || kind == N_WORST) {
        n->u.rep.a = args[1];
        n->u.rep.n = reps;
    } else if (kind == N_ABS) {
        n->u.un.a = args[0];
    } else {
        n->u.bin.a = args[0];
        n->u.bin.b = args[1];
    }
    *out = n;
    return ALEA_OK;
}
