/*
 * parse_dice.c -- dice terms: "4d6", "d{1,1,2}", "3d6!>5", "10d10>=8f1",
 * "4d6kh3", "2d20ro<3": a die's faces, its modifiers and their conditions,
 * and the checks that need only the term (an explosion that never ends, a
 * reroll that matches every face).
 */
#include "parser.h"

/* ---- dice ------------------------------------------------------------------ */

/* signed = ["-"] NUM */
static alea_status parse_signed(parser *p, int64_t *v, const char *what)
{
    *v = 0;
    int neg = accept(p, T_MINUS);
    const token *t = peek(p);
    if (t->kind != T_NUM)
        return err_at(p, t, what);
    advance(p);
    *v = neg ? -t->num : t->num;
    return ALEA_OK;
}

/*
 * cond = [ "=" | "<" | "<=" | ">" | ">=" ] signed
 * In Roll20's dialect "<" and ">" are "at most" and "at least"; in
 * rpg-dice-roller's "<>" is "not equal" too (dialect.h).
 */
static alea_status parse_cond(parser *p, cond *c, const char *what)
{
    const token *t = peek(p);
    switch (t->kind) {
    case T_EQ: c->op = CMP_EQ; advance(p); break;
    case T_LT:
    case T_GT:
        if (p->dl->inclusive)
            c->op = t->kind == T_GT ? CMP_GE : CMP_LE;
        else
            c->op = t->kind == T_GT ? CMP_GT : CMP_LT;
        advance(p);
        break;
    case T_LE: c->op = CMP_LE; advance(p); break;
    case T_GE: c->op = CMP_GE; advance(p); break;
    case T_NE:
        if (!p->dl->not_equal)
            return err_at(p, t, what);
        c->op = CMP_NE;
        advance(p);
        break;
    case T_NUM:
    case T_MINUS: c->op = CMP_EQ; break;
    default: return err_at(p, t, what);
    }
    return parse_signed(p, &c->value, what);
}

/* Whether a condition starts here (the dialect's comparisons, or a number). */
static int starts_cond(const parser *p)
{
    switch (peek(p)->kind) {
    case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE: case T_NUM: case T_MINUS: return 1;
    case T_NE: return p->dl->not_equal;
    default: return 0;
    }
}

/*
 * After "r1": "r1=1" is, in Foundry VTT, a reroll of at most one die showing
 * 1: the number after "r" is how many dice, the condition after it which.
 * With one die and an equality, every matching die shows the same face, so
 * which one is rerolled does not matter: it is alea's "ra1" (the new face
 * stands). Other counts and conditions are refused; in the other dialects
 * it is a reroll of every 1 and a success count, which a Foundry user would
 * not expect, so it gets a hint.
 */
static alea_status reroll_count(parser *p, const token *r, pool *pl)
{
    const token *t = peek(p);
    if (p->t[p->pos - 1].end != t->start || !(t->kind == T_EQ || t->kind == T_LT ||
                                              t->kind == T_LE || t->kind == T_GT ||
                                              t->kind == T_GE))
        return ALEA_OK;
    size_t end = peek_at(p, 1)->end; /* "r1=1": through the condition's value */
    if (p->dl->reroll_once) {
        cond which;
        int64_t count = pl->reroll.value;
        alea_status st = parse_cond(p, &which, "the face to reroll (as in r1=1)");
        if (st != ALEA_OK)
            return st;
        end = p->t[p->pos - 1].end;
        if (count != 1 || pl->reroll.op != CMP_EQ || which.op != CMP_EQ)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, r->start, end,
                               "'%.*s', a reroll of at most that many dice, is supported for "
                               "one die and one face only, as in r1=1 (byte %u)",
                               (int)(end - r->start), p->src + r->start, (unsigned)r->start);
        if (pl->has_reroll_one)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, r->start, end,
                               "a reroll of one die given twice, second at byte %u",
                               (unsigned)r->start);
        pl->has_reroll = 0;
        pl->reroll_once = 0;
        pl->has_reroll_one = 1;
        pl->reroll_one = which;
        return ALEA_OK;
    }
    if (p->dl->hints)
        alea__p_hint(p, "'%.*s' rerolls every matching die, then counts successes; in "
                        "Foundry VTT it rerolls at most that many dice (--dialect foundry)",
                     (int)(end - r->start), p->src + r->start);
    return ALEA_OK;
}

/* A meaning of the dialect's tool that alea does not have yet: refused,
 * rather than read in alea's meaning. */
static alea_status unsupported(parser *p, const token *t, const char *what)
{
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "%s: %s is not supported yet in this dialect (byte %u); "
                       "docs/dialects.md lists what is",
                       p->dl->tool, what, (unsigned)t->start);
}

/*
 * rpg-dice-roller's keep and drop: every step chooses from the whole pool
 * of m dice, and a die either drops is dropped ("3d10k1d1": the highest,
 * unless it is also the lowest). The dice kept are the sorted positions all
 * the steps keep, [lo, hi): written as alea's "dl lo kl (hi - lo)".
 */
static alea_status keep_whole(parser *p, pool *pl, keep_step *keeps, uint32_t *nkeeps,
                              size_t start)
{
    if (pl->count_expr)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, start, p->t[p->pos - 1].end,
                           "%s: several keep and drop steps on a rolled number of dice "
                           "are not supported yet in this dialect (byte %zu)",
                           p->dl->tool, start);
    int64_t m = pl->count, lo = 0, hi = m;
    for (uint32_t i = 0; i < *nkeeps; i++) {
        int64_t k = keeps[i].n > m ? m : keeps[i].n;
        switch (keeps[i].op) {
        case KEEP_HIGH: lo = lo > m - k ? lo : m - k; break;
        case KEEP_LOW: hi = hi < k ? hi : k; break;
        case DROP_HIGH: hi = hi < m - k ? hi : m - k; break;
        default: lo = lo > k ? lo : k; break; /* DROP_LOW */
        }
    }
    if (hi < lo)
        hi = lo;
    keeps[0].op = DROP_LOW;
    keeps[0].n = lo;
    keeps[1].op = KEEP_LOW;
    keeps[1].n = hi - lo;
    *nkeeps = 2;
    return ALEA_OK;
}

/* faces = item { "," item } ; item = signed [ ".." signed ]   (inside braces) */
static alea_status parse_faces(parser *p, die_spec *d, const token *open)
{
    int64_t *faces = NULL;
    uint32_t n = 0, cap = 0;
    int64_t first_lo = 0, first_hi = 0;
    int single_range = 0;
    alea_status st;
    if (at(p, T_RBRACE))
        return alea__error(p->ctx, ALEA_ERR_INVALID, open->start, peek(p)->end,
                           "a die needs at least one face: d{} has none (byte %u)",
                           (unsigned)open->start);
    for (;;) {
        int64_t lo, hi;
        const token *it = peek(p);
        if ((st = parse_signed(p, &lo, "a face value")) != ALEA_OK)
            return st;
        hi = lo;
        int is_range = 0;
        if (accept(p, T_DOTDOT)) {
            if ((st = parse_signed(p, &hi, "the end of the face range")) != ALEA_OK)
                return st;
            if (hi < lo)
                return alea__error(p->ctx, ALEA_ERR_INVALID, it->start, p->t[p->pos - 1].end,
                                   "empty face range %lld..%lld at byte %u",
                                   (long long)lo, (long long)hi, (unsigned)it->start);
            is_range = 1;
        }
        if (n == 0 && is_range && at(p, T_RBRACE)) {
            /* d{a..b}: a range die, never expanded. */
            first_lo = lo;
            first_hi = hi;
            single_range = 1;
            break;
        }
        /* Expanded faces count against the node limit. */
        uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
        if (span == 0 || span > (uint64_t)(p->max_nodes - p->nodes))
            return alea__error(p->ctx, ALEA_ERR_LIMIT, it->start, p->t[p->pos - 1].end,
                               "too many faces in a custom die at byte %u (node limit is "
                               "%lld terms; write a single range d{a..b} for large dice)",
                               (unsigned)it->start, (long long)p->max_nodes);
        p->nodes += (uint32_t)span;
        for (uint64_t k = 0; k < span; k++) {
            if (n == cap) {
                uint32_t ncap = cap ? cap * 2 : 8;
                int64_t *nf = alloc(p, ncap * sizeof *nf);
                if (!nf)
                    return alea__nomem(p->ctx);
                if (n)
                    memcpy(nf, faces, n * sizeof *nf);
                faces = nf;
                cap = ncap;
            }
            faces[n++] = (int64_t)((uint64_t)lo + k);
        }
        if (!accept(p, T_COMMA))
            break;
    }
    if ((st = expect(p, T_RBRACE, "',' or '}' in the face list")) != ALEA_OK)
        return st;
    if (single_range) {
        d->kind = FACES_RANGE;
        d->style = DIE_BRACE;
        d->lo = first_lo;
        d->hi = first_hi;
        return ALEA_OK;
    }
    int64_t *sorted = alloc(p, n * sizeof *sorted);
    if (!sorted)
        return alea__nomem(p->ctx);
    memcpy(sorted, faces, n * sizeof *sorted);
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: lists are short */
        int64_t v = sorted[i];
        uint32_t j = i;
        while (j > 0 && sorted[j - 1] > v) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = v;
    }
    d->kind = FACES_LIST;
    d->style = DIE_PLAIN;
    d->faces = faces;
    d->sorted = sorted;
    d->nfaces = n;
    d->lo = sorted[0];
    d->hi = sorted[n - 1];
    return ALEA_OK;
}

/* sides = NUM | "%" | "F" | "{" faces "}" */
static alea_status parse_sides(parser *p, die_spec *d, const token *dtok)
{
    const token *t = peek(p);
    d->kind = FACES_RANGE;
    d->style = DIE_PLAIN;
    switch (t->kind) {
    case T_NUM:
        advance(p);
        d->lo = t->num == 0 ? 0 : 1; /* d0 is the null die: one face, 0 */
        d->hi = t->num;
        return ALEA_OK;
    case T_PERCENT:
        advance(p);
        if (p->dl->pct_tens) { /* the tens die: d{0,10,...,90} */
            static const int64_t tens[] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
            d->kind = FACES_LIST;
            d->faces = d->sorted = tens;
            d->nfaces = 10;
            d->lo = 0;
            d->hi = 90;
            return ALEA_OK;
        }
        d->style = DIE_PCT;
        d->lo = 1;
        d->hi = 100;
        return ALEA_OK;
    case T_F:
        advance(p);
        d->style = DIE_FUDGE;
        d->lo = -1;
        d->hi = 1;
        return ALEA_OK;
    case T_LBRACE:
        advance(p);
        return parse_faces(p, d, t);
    default:
        (void)dtok;
        return err_at(p, t, "the number of sides after 'd' (as in d6, d%, dF or d{1,2,3})");
    }
}


int alea__p_starts_sides(tok_kind k)
{
    return k == T_NUM || k == T_PERCENT || k == T_F || k == T_LBRACE || k == T_LPAREN;
}

/*
 * sides = "(" expr ")"     rolled sides: "1d(1d20)", "3d(2*4)"
 * The die is 1..value when rolled (0: the null die); until then the pool
 * holds a placeholder die 1..INT64_MAX, so that the checks of its modifiers
 * ask what any die could do ("r>0" rerolls every face of any die).
 */
static alea_status parse_rolled_sides(parser *p, pool *pl)
{
    const token *open = advance(p);
    alea_status st;
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    if ((st = alea__p_expr(p, &pl->sides_expr)) != ALEA_OK)
        return st;
    if ((st = expect(p, T_RPAREN, "')' after the number of sides")) != ALEA_OK)
        return st;
    leave(p);
    pl->die.kind = FACES_RANGE;
    pl->die.style = DIE_PLAIN;
    pl->die.lo = 1;
    pl->die.hi = INT64_MAX;
    return ALEA_OK;
}

/* Does cond c match every face in [a, b] (a <= b)? Conditions on a range
 * are intervals touching one end (or a point), so the ends decide. */
static int cond_all_in(const cond *c, int64_t a, int64_t b)
{
    if (c->op == CMP_EQ)
        return a == b && c->value == a;
    if (c->op == CMP_NE)
        return c->value < a || c->value > b;
    return alea__cond_match(c, a) && alea__cond_match(c, b);
}

/* Does cond c match every face of die d, except those matching `except`
 * (faces a reroll "r" removes; NULL for none)? */
static int cond_all(const die_spec *d, const cond *c, const cond *except)
{
    if (d->kind == FACES_LIST) {
        for (uint32_t i = 0; i < d->nfaces; i++) {
            int64_t v = d->sorted[i];
            if (except && alea__cond_match(except, v))
                continue;
            if (!alea__cond_match(c, v))
                return 0;
        }
        return 1;
    }
    if (!except)
        return cond_all_in(c, d->lo, d->hi);
    /* The faces left after removing `except` form at most two intervals. */
    int64_t lo = d->lo, hi = d->hi, v = except->value;
    int64_t a1 = lo, b1 = hi, a2 = 1, b2 = 0; /* [a2,b2] empty unless set */
    switch (except->op) {
    case CMP_EQ:
        if (v < lo || v > hi)
            break;
        b1 = v - 1; /* v > lo here or the interval is empty: v >= lo > INT64_MIN */
        if (v < hi) {
            a2 = v + 1;
            b2 = hi;
        }
        if (v == lo) { /* first interval empty */
            a1 = 1;
            b1 = 0;
        }
        break;
    case CMP_LT: if (v > lo) a1 = v; break;       /* keep [v, hi] */
    case CMP_LE: if (v >= lo) { if (v == INT64_MAX) { a1 = 1; b1 = 0; } else a1 = v + 1; } break;
    case CMP_GT: if (v < hi) b1 = v; break;       /* keep [lo, v] */
    case CMP_GE: if (v <= hi) { if (v == INT64_MIN) { a1 = 1; b1 = 0; } else b1 = v - 1; } break;
    case CMP_NE: /* keep [v, v] */
        if (v >= lo && v <= hi)
            a1 = b1 = v;
        else
            a1 = 1, b1 = 0;
        break;
    default: break;
    }
    if (a1 <= b1 && !cond_all_in(c, a1, b1))
        return 0;
    if (a2 <= b2 && !cond_all_in(c, a2, b2))
        return 0;
    return 1;
}

static int cond_any(const die_spec *d, const cond *c)
{
    if (d->kind == FACES_RANGE) {
        switch (c->op) {
        case CMP_EQ: return c->value >= d->lo && c->value <= d->hi;
        case CMP_LT: return d->lo < c->value;
        case CMP_LE: return d->lo <= c->value;
        case CMP_GT: return d->hi > c->value;
        case CMP_GE: return d->hi >= c->value;
        case CMP_NE: return !(d->lo == d->hi && d->hi == c->value);
        default: return 1;
        }
    }
    for (uint32_t i = 0; i < d->nfaces; i++)
        if (alea__cond_match(c, d->sorted[i]))
            return 1;
    return 0;
}

static const char *cond_op_str(uint8_t op)
{
    switch (op) {
    case CMP_EQ: return "=";
    case CMP_LT: return "<";
    case CMP_LE: return "<=";
    case CMP_GT: return ">";
    case CMP_GE: return ">=";
    default: return "<>";
    }
}

/* Checks that need the whole pool: run once its modifiers are parsed. */
static alea_status check_pool(parser *p, const pool *pl, const node *n,
                              const token *rtok, const token *etok,
                              const token *stok)
{
    const die_spec *d = &pl->die;
    if (pl->has_reroll && cond_all(d, &pl->reroll, NULL))
        return alea__error(p->ctx, ALEA_ERR_INVALID, rtok->start, rtok->end,
                           pl->reroll_once
                               ? "reroll condition %s%lld matches every face of the die, "
                                 "so every die would be rerolled (byte %u)"
                               : "reroll condition %s%lld matches every face of the die, "
                                 "so no roll could be kept (byte %u)",
                           cond_op_str(pl->reroll.op), (long long)pl->reroll.value,
                           (unsigned)rtok->start);
    if (pl->explode != EXPLODE_NONE && !cond_any(d, &pl->trigger))
        return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                           "the explosion trigger %s%lld matches no face of the die, so "
                           "it would never explode (byte %u); to count successes on "
                           "exploding dice, give the trigger first, as in 3d6!!6>=7",
                           cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                           (unsigned)etok->start);
    if (pl->explode != EXPLODE_NONE) {
        /* With "r", rerolled faces never show; with "ro" they can. */
        const cond *gone = pl->has_reroll && !pl->reroll_once ? &pl->reroll : NULL;
        if (cond_all(d, &pl->trigger, gone)) {
            if (!pl->trigger_written)
                return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                                   "explosion would never end: every roll of this die "
                                   "shows its maximum %lld (byte %u)",
                                   (long long)d->hi, (unsigned)etok->start);
            return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                               "explosion would never end: the trigger %s%lld matches "
                               "every face of the die (byte %u)",
                               cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                               (unsigned)etok->start);
        }
    }
    if (pl->has_success) {
        if (pl->explode == EXPLODE_EACH && pl->nkeeps > 0)
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "success counting on '!' dice with keep or drop is "
                               "ambiguous (byte %u): write '!!' to judge each die's "
                               "total, or drop the keep",
                               (unsigned)stok->start);
        /* the whole sum the dice end: "2d6 + 1d6 = 7" is (2d6 + 1d6) = 7 */
        size_t from = p->sum_start < n->start ? p->sum_start : n->start;
        if (pl->explode != EXPLODE_COMPOUND && !pl->penetrate &&
            !cond_any(d, &pl->success) &&
            !(pl->has_failure && cond_any(d, &pl->failure)))
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "no face of the die is %s %lld, so no die could count "
                               "as a success (byte %u); to compare a total, put it in "
                               "parentheses, as in (%.*s) %s %lld",
                               cond_op_str(pl->success.op), (long long)pl->success.value,
                               (unsigned)stok->start,
                               (int)trimmed_len(p, from, stok->start), p->src + from,
                               cond_op_str(pl->success.op), (long long)pl->success.value);
    }
    return ALEA_OK;
}

/* What rolled sides do not support yet, refused by name. */
static alea_status check_rolled_sides(parser *p, const pool *pl, const token *etok,
                                      const token *stok)
{
    /* Its canonical text would spell the trigger, which is the rolled
     * maximum: no number can stand for it. */
    if (pl->explode != EXPLODE_NONE && !pl->trigger_written && stok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, etok->start, etok->end,
                           "success counting on exploding dice with rolled sides is not "
                           "supported yet unless the explosion's trigger is written, as in "
                           "3d(1d6+4)!>=6>=5 (byte %u)",
                           (unsigned)etok->start);
    return ALEA_OK;
}

alea_status alea__pool_at_sides(alea_ctx *ctx, const node *n, int64_t sides, int possible,
                                pool *out)
{
    const pool *p = n->u.pool;
    const node *se = p->sides_expr;
    if (!se)
        return alea__broken(ctx, n->start, n->end, "rolled sides without their expression");
    if (sides < 0)
        return possible ? alea__error(ctx, ALEA_ERR_DOMAIN, se->start, se->end,
                                      "number of sides can be negative at byte %u (it can "
                                      "be %lld)",
                                      (unsigned)se->start, (long long)sides)
                        : alea__error(ctx, ALEA_ERR_DOMAIN, se->start, se->end,
                                      "negative number of sides %lld at byte %u",
                                      (long long)sides, (unsigned)se->start);
    *out = *p;
    out->sides_expr = NULL;
    out->die.lo = sides == 0 ? 0 : 1; /* d0 is the null die: one face, 0 */
    out->die.hi = sides;
    if (p->explode != EXPLODE_NONE && !p->trigger_written)
        out->trigger.value = sides;
    const char *what = possible ? "can be" : "rolled";
    const cond *gone = p->has_reroll && !p->reroll_once ? &p->reroll : NULL;
    if (gone && cond_all(&out->die, gone, NULL))
        return alea__error(ctx, ALEA_ERR_INVALID, se->start, se->end,
                           "reroll condition %s%lld matches every face of a d%lld, so no "
                           "roll could be kept: the sides at byte %u %s %lld",
                           cond_op_str(p->reroll.op), (long long)p->reroll.value,
                           (long long)sides, (unsigned)se->start, what, (long long)sides);
    if (p->explode != EXPLODE_NONE && cond_all(&out->die, &out->trigger, gone))
        return alea__error(ctx, ALEA_ERR_INVALID, se->start, se->end,
                           "explosion would never end: every roll of a d%lld explodes, and "
                           "the sides at byte %u %s %lld",
                           (long long)sides, (unsigned)se->start, what, (long long)sides);
    return ALEA_OK;
}

/*
 * dice_tail = "d" sides { modifier }
 * modifier  = keep | explode | reroll | success
 * keep      = ("kh" | "kl" | "dh" | "dl" | "k" | "d") [NUM]
 * explode   = "!" ["!"] ["p"] [cond]
 * reroll    = ("r" | "ro" | "ra") cond
 * success   = ("=" | "<" | "<=" | ">" | ">=") signed ["f" cond]
 */
alea_status alea__p_dice_tail(parser *p, const node *count_expr, int64_t count,
                                   int implicit, size_t start, const node **out)
{
    alea_status st;
    const token *dtok = advance(p); /* 'd' */
    pool *pl = alloc(p, sizeof *pl);
    if (!pl)
        return alea__nomem(p->ctx);
    memset(pl, 0, sizeof *pl);
    pl->count_expr = count_expr;
    pl->count = count;
    pl->count_implicit = (uint8_t)implicit;
    if ((st = at(p, T_LPAREN) ? parse_rolled_sides(p, pl) : parse_sides(p, &pl->die, dtok)) !=
        ALEA_OK)
        return st;

    keep_step *keeps = NULL;
    uint32_t nkeeps = 0, kcap = 0;
    const token *rtok = NULL, *etok = NULL, *stok = NULL, *ktok = NULL;
    for (;;) {
        const token *t = peek(p);
        uint8_t kop;
        switch (t->kind) {
        case T_KH: kop = KEEP_HIGH; goto keep;
        case T_K: kop = KEEP_HIGH; goto keep;
        case T_KL: kop = KEEP_LOW; goto keep;
        case T_DH: kop = DROP_HIGH; goto keep;
        case T_DL: kop = DROP_LOW; goto keep;
        case T_D:
            kop = DROP_LOW;
        keep: {
            if (p->dl->no_d20_select && (t->kind == T_K || nkeeps > 0))
                return unsupported(p, t, t->kind == T_K
                                             ? "'k' with a value selector (k3: the dice "
                                               "showing 3; k>3, k<3)"
                                             : "several selections, which add up there");
            if (!ktok)
                ktok = t;
            advance(p);
            int64_t k = 1;
            if (at(p, T_NUM))
                k = advance(p)->num;
            if (nkeeps == kcap) {
                uint32_t ncap = kcap ? kcap * 2 : 2;
                keep_step *nk = alloc(p, ncap * sizeof *nk);
                if (!nk)
                    return alea__nomem(p->ctx);
                if (nkeeps)
                    memcpy(nk, keeps, nkeeps * sizeof *nk);
                keeps = nk;
                kcap = ncap;
            }
            if ((st = count_nodes(p, 1, t->start, t->end)) != ALEA_OK)
                return st;
            keeps[nkeeps].op = kop;
            keeps[nkeeps].n = k;
            nkeeps++;
            continue;
        }
        case T_BANG:
            if (peek_at(p, 1)->kind == T_EQ && peek_at(p, 1)->start == t->end) {
                if (p->dl->bang_ne)
                    break; /* d20's "!=": a comparison, not an explosion */
                if (p->dl->hints)
                    alea__p_hint(p, "'!=' after dice explodes each die on the face that "
                                    "follows; to compare the total write <> (in Avrae's d20 "
                                    "'!=' is \"not equal\": --dialect d20)");
            }
            if (etok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "a die can explode only one way, second '!' "
                                   "modifier at byte %u",
                                   (unsigned)t->start);
            etok = advance(p);
            pl->explode = EXPLODE_EACH;
            if (at(p, T_BANG) && peek(p)->start == etok->end) {
                advance(p);
                pl->explode = EXPLODE_COMPOUND;
            }
            if (accept(p, T_P))
                pl->penetrate = 1;
            pl->trigger.op = CMP_EQ;
            pl->trigger.value = pl->die.hi;
            switch (peek(p)->kind) {
            case T_NE:
                if (!p->dl->not_equal)
                    break;
                /* fall through */
            case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE: case T_NUM:
                if ((st = parse_cond(p, &pl->trigger, "an explosion condition")) != ALEA_OK)
                    return st;
                pl->trigger_written = 1;
                break;
            default:
                break;
            }
            continue;
        case T_R:
        case T_RO:
            if (rtok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "a die can have only one reroll modifier, second "
                                   "one at byte %u",
                                   (unsigned)t->start);
            rtok = advance(p);
            pl->has_reroll = 1;
            pl->reroll_once = t->kind == T_RO;
            if (t->kind == T_R && p->dl->rr && at(p, T_R) && peek(p)->start == t->end) {
                rtok = advance(p); /* "rr": until no match, as alea's "r" */
            } else if (t->kind == T_R && p->dl->reroll_once) {
                /* Foundry: "r" rerolls once; bare, the lowest face */
                pl->reroll_once = 1;
                if (!starts_cond(p)) {
                    pl->reroll.op = CMP_EQ;
                    pl->reroll.value = pl->die.lo;
                    continue;
                }
            }
            if ((st = parse_cond(p, &pl->reroll,
                                 "a reroll condition (as in r1, r<3, ro<=2)")) != ALEA_OK)
                return st;
            if ((st = reroll_count(p, rtok, pl)) != ALEA_OK)
                return st;
            continue;
        case T_RA:
            if (p->dl->no_d20_select)
                return unsupported(p, t, "'ra', reroll and add");
            if (pl->has_reroll_one)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "'ra' given twice, second at byte %u", (unsigned)t->start);
            advance(p);
            pl->has_reroll_one = 1;
            if ((st = parse_cond(p, &pl->reroll_one,
                                 "a condition for the die to reroll (as in ra1)")) != ALEA_OK)
                return st;
            continue;
        case T_NE:
            if (!p->dl->not_equal)
                break;
            /* fall through */
        case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE:
            if (stok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "success counting given twice, second at byte %u "
                                   "(to compare the total, put the dice in parentheses)",
                                   (unsigned)t->start);
            stok = t;
            pl->has_success = 1;
            if (t->start > p->t[p->pos - 1].end && p->dl->hints)
                /* "3d6 >= 5", as AnyDice or icepool write a comparison */
                alea__p_hint(p, "'%.*s' counts the dice that match '%.*s' (success counting, "
                                "as Roll20 does); to compare the total, write (%.*s) %.*s",
                             (int)(peek_at(p, 1)->end - start), p->src + start,
                             (int)(peek_at(p, 1)->end - t->start), p->src + t->start,
                             (int)trimmed_len(p, p->sum_start < start ? p->sum_start : start,
                                              t->start),
                             p->src + (p->sum_start < start ? p->sum_start : start),
                             (int)(peek_at(p, 1)->end - t->start), p->src + t->start);
            if ((t->kind == T_GT || t->kind == T_LT) && !p->hint[0] &&
                p->dl->hints && peek_at(p, 1)->kind == T_NUM &&
                peek_at(p, 1)->num < INT64_MAX) {
                long long v = (long long)peek_at(p, 1)->num; /* "<3": 2 or less here */
                int gt = t->kind == T_GT;
                alea__p_hint(p, "'%c%lld' on dice counts %lld or %s; Roll20 reads it as %lld or "
                                "%s (--dialect roll20)",
                             gt ? '>' : '<', v, gt ? v + 1 : v - 1, gt ? "more" : "less", v,
                             gt ? "more" : "less");
            }
            if ((st = parse_cond(p, &pl->success, "a success threshold")) != ALEA_OK)
                return st;
            if (at(p, T_D) && alea__p_starts_sides((tok_kind)peek_at(p, 1)->kind)) {
                /* "1d20 >= 1d20": the threshold would become "1" and the rest
                 * a drop. It is a comparison of two rolls. */
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, peek_at(p, 1)->end,
                                   "a success threshold must be a number (byte %u); to "
                                   "compare two rolls, put the first in parentheses: "
                                   "(%.*s) %s ...",
                                   (unsigned)t->start, (int)trimmed_len(p, start, t->start),
                                   p->src + start, alea__cmp_str(pl->success.op));
            }
            if (accept(p, T_F)) {
                pl->has_failure = 1;
                if ((st = parse_cond(p, &pl->failure,
                                     "a failure condition (as in f1, f<3)")) != ALEA_OK)
                    return st;
            }
            continue;
        default:
            break;
        }
        break;
    }
    if (nkeeps > 0 && pl->explode != EXPLODE_NONE && p->dl->no_keep_explode)
        return unsupported(p, ktok,
                           "keep and drop on exploding dice, which choose single rolls");
    if (nkeeps > 1 && p->dl->keep_whole &&
        (st = keep_whole(p, pl, keeps, &nkeeps, start)) != ALEA_OK)
        return st;
    if (pl->sides_expr && (st = check_rolled_sides(p, pl, etok, stok)) != ALEA_OK)
        return st;
    pl->keeps = keeps;
    pl->nkeeps = nkeeps;
    node *n;
    size_t end = p->t[p->pos - 1].end;
    if ((st = new_node(p, N_DICE, start, end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    if ((st = check_pool(p, pl, n, rtok, etok, stok)) != ALEA_OK)
        return st;
    *out = n;
    return ALEA_OK;
}
