/*
 * parse_dice.c -- dice terms: "4d6", "d{1,1,2}", "1d(1d20)", then their
 * modifiers ("3d6!>5", "10d10>=8f1", "4d6kh3"), each read by its row of
 * the table in mods.h (parse_mods.c), and the checks of the whole term.
 */
#include "mods.h"

/* ---- dice ------------------------------------------------------------------ */

/* signed = ["-"] NUM */
alea_status alea__p_signed(parser *p, int64_t *v, const char *what)
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
        if ((st = alea__p_signed(p, &lo, "a face value")) != ALEA_OK)
            return st;
        hi = lo;
        int is_range = 0;
        if (accept(p, T_DOTDOT)) {
            if ((st = alea__p_signed(p, &hi, "the end of the face range")) != ALEA_OK)
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
            if ((st = alea__p_grow(p, (void **)&faces, n, &cap, sizeof *faces, 8)) != ALEA_OK)
                return st;
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
        return err_at(p, t, "the number of sides after 'd' (as in d6, d%, dF, d{1,2,3} or d(1d6))");
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

/*
 * dice_tail = "d" sides { modifier }
 * modifier  = a row of ALEA__POOL_MODS (mods.h), whose parse carries its rule
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

    alea__mods m = {.pl = pl, .start = start};
    const alea__mod *rows = alea__mods_rows, *end = rows + alea__mods_nrows;
    for (int taken = 1; taken;) {
        const token *t = peek(p);
        taken = 0;
        for (const alea__mod *r = rows; !taken && r < end; r++) {
            if (!memchr(r->kinds, t->kind, r->nkinds))
                continue;
            if (r->refused && (st = r->refused(p, t)) != ALEA_OK)
                return st;
            if (r->parse && (st = r->parse(p, &m, t, &taken)) != ALEA_OK)
                return st;
        }
    }
    if ((st = alea__mods_finish(p, &m)) != ALEA_OK)
        return st;
    node *n;
    if ((st = new_node(p, N_DICE, start, p->t[p->pos - 1].end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    for (const alea__mod *r = rows; r < end; r++)
        if (r->check && (st = r->check(p, &m)) != ALEA_OK)
            return st;
    return alea__mods_margin(p, &m, n, out);
}
