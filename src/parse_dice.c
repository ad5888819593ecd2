/*
 * parse_dice.c -- dice terms: "4d6", "d{1,1,2}", "1d(1d20)", then their
 * modifiers ("3d6!>5", "10d10>=8f1", "4d6kh3"), each read by its row of
 * the table in mods.h (parse_mods.c), and the checks of the whole term;
 * the conditions the modifiers and groups take (">=8", "<>3").
 */
#include "mods.h"
#include "pool.h"

/* ---- conditions ------------------------------------------------------------ */

/*
 * cond = [ "=" | "<>" | "<" | "<=" | ">" | ">=" ] signed
 * In Roll20's dialect "<" and ">" are "at most" and "at least". "<>" is
 * "not equal" where ne_ok says (rerolls, failures, markers: where it would
 * otherwise be an error), and in rpg-dice-roller's dialect everywhere.
 */
static alea_status parse_cond_in(parser *p, cond *c, const char *what, int ne_ok)
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
        if (!p->dl->not_equal && !ne_ok)
            return err_at(p, t, what);
        c->op = CMP_NE;
        advance(p);
        break;
    case T_NUM:
    case T_MINUS: c->op = CMP_EQ; break;
    default: return err_at(p, t, what);
    }
    return alea__p_signed(p, &c->value, what);
}

/* A condition where "<>" would read as a comparison of the total in alea
 * ("2d10!<>8", "3d6<>3"): not equal only in rpg-dice-roller's dialect. */
alea_status alea__p_cond(parser *p, cond *c, const char *what)
{
    return parse_cond_in(p, c, what, 0);
}

/* A condition where "<>" is "not equal" in every dialect ("r<>3"). */
alea_status alea__p_cond_ne(parser *p, cond *c, const char *what)
{
    return parse_cond_in(p, c, what, 1);
}

/* Whether a condition starts here (the dialect's comparisons, or a number;
 * "<>" when ne_ok). */
int alea__p_starts_cond(const parser *p, int ne_ok)
{
    switch (peek(p)->kind) {
    case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE: case T_NUM: case T_MINUS: return 1;
    case T_NE: return p->dl->not_equal || ne_ok;
    default: return 0;
    }
}

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

/* Grows an arena array of `size`-byte elements to hold one more (mods.h). */
alea_status alea__p_grow(parser *p, void **v, uint32_t n, uint32_t *cap, size_t size,
                         uint32_t first)
{
    if (n < *cap)
        return ALEA_OK;
    uint32_t ncap = *cap ? *cap * 2 : first;
    void *nv = p_alloc(p, alea__mul_size(ncap, size));
    if (!nv)
        return alea__nomem(p->ctx);
    if (n)
        memcpy(nv, *v, n * size);
    *v = nv;
    *cap = ncap;
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
    int64_t *sorted = p_alloc(p, n * sizeof *sorted);
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

/* ---- the checks of the whole term -------------------------------------------- */

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

/* Stores the selection steps in the pool; refuses what alea cannot do with
 * them yet. *singles is set when d20's one "kh"/"kl"/"ph"/"pl" step follows
 * "e" (xtok): it keeps or drops single rolls, each explosion a die of the set
 * (keep_singles checks the rest). */
static alea_status finish_select(parser *p, pool *pl, const sel_buf *b, const token *first,
                                 const token *xtok, int *singles)
{
    *singles = 0;
    if (!b->nops)
        return ALEA_OK;
    if (pl->extra || pl->has_reroll_one || pl->explode_cap)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, first->start, first->end,
                           "a selection of dice ('k{...}', 'p{...}') with %s is not "
                           "supported yet (byte %u)",
                           pl->extra           ? "extra dice"
                           : pl->has_reroll_one ? "'ra'"
                                                : "a capped explosion",
                           (unsigned)first->start);
    if (pl->explode != EXPLODE_NONE && p->dl->d20_select) {
        if (!xtok)
            return unsupported(p, first, "keep and drop on exploding dice, which choose "
                                         "single rolls");
        if (b->nops != 1 || b->ops[0].n != 1 || b->items[b->ops[0].first].kind == SEL_VALUE)
            return unsupported(p, first, "a selection by value or several selectors on "
                                         "exploding dice, which choose single rolls");
        *singles = 1;
    }
    /* Leading steps of one highest or lowest item are alea's keep steps
     * ("4d6kh3", "4d6pl1"): written so, they print so. */
    uint32_t lead = 0;
    while (!pl->nkeeps && lead < b->nops && b->ops[lead].n == 1 &&
           b->items[b->ops[lead].first].kind != SEL_VALUE)
        lead++;
    if (lead) {
        keep_step *ks = p_alloc(p, alea__mul_size(lead, sizeof *ks));
        if (!ks)
            return alea__nomem(p->ctx);
        for (uint32_t i = 0; i < lead; i++) {
            const select_item *it = &b->items[b->ops[i].first];
            int high = it->kind == SEL_HIGH;
            ks[i].op = b->ops[i].drop ? (high ? DROP_HIGH : DROP_LOW)
                                      : (high ? KEEP_HIGH : KEEP_LOW);
            ks[i].n = it->n;
        }
        pl->keeps = ks;
        pl->nkeeps = lead;
    }
    pl->selects = b->ops + lead;
    pl->sel_items = b->items;
    pl->nselects = b->nops - lead;
    return ALEA_OK;
}

/* The dialect's refusals of modifier orders alea does not have yet
 * (dialect.h); ctok the first clamp, xtok the tool's own explosion, ktok
 * the first keep or drop. */
static alea_status check_order(parser *p, const pool *pl, const token *ctok,
                               const token *rtok, const token *etok, const token *xtok,
                               const token *ktok)
{
    const alea__dialect *dl = p->dl;
    if (ctok && rtok && (dl->clamp_first || (dl->written_order && ctok->start < rtok->start)))
        return unsupported(p, ctok, dl->clamp_first ? "a clamp with a reroll, which there "
                                                      "rerolls the clamped value"
                                                    : "a clamp before a reroll, which there "
                                                      "rerolls the clamped value");
    if (xtok && rtok && dl->written_order)
        return unsupported(p, rtok, "a reroll with an explosion, whose extra dice there "
                                    "are never rerolled");
    if (etok && rtok && dl->reroll_after_explode)
        return unsupported(p, rtok, "a reroll with an explosion, which there rerolls "
                                    "every roll of a chain after it exploded, the new "
                                    "face never exploding");
    if (xtok && ktok && dl->written_order && ktok->start < xtok->start)
        return unsupported(p, ktok, "keep or drop before an explosion, which there "
                                    "explodes only the dice kept");
    if (ctok && dl->clamp_count_only && ((etok && !pl->clamp_all) || pl->has_success))
        return unsupported(p, ctok, etok && !pl->clamp_all
                                        ? "a clamp before the explosion, which there still "
                                          "explodes on the face"
                                        : "a clamp with success counting, which there "
                                          "still counts the face");
    if (pl->explode_cap && (pl->count_expr || pl->nkeeps || pl->has_reroll_one))
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, etok->start, etok->end,
                           "%s is not supported yet (byte %u)",
                           pl->count_expr ? "a capped explosion on a rolled number of dice"
                           : pl->nkeeps   ? "keep and drop with a capped explosion"
                                          : "the Lucky reroll 'ra' with a capped explosion",
                           (unsigned)etok->start);
    if (ctok && xtok && dl->ra_adds && pl->explode_cap)
        return unsupported(p, ctok, "a clamp with 'ra'");
    return ALEA_OK;
}

/*
 * rpg-dice-roller's keep and drop on "!" dice: each roll of a chain is an
 * entry of its own, kept or dropped alone ("5d10!k2"). The exact engine
 * (exact.c, singles) sees the pool as the final rolls and the rolls that
 * exploded, two kinds of dice apart in order; what would mix them, or
 * change one roll of a chain and not another, is refused until alea has it.
 */
static alea_status keep_singles(parser *p, pool *pl, uint32_t nkeeps, const token *ktok,
                                const token *rtok, const token *ctok)
{
    const char *why = NULL;
    if (nkeeps > 1)
        why = "several keep and drop steps on exploding dice";
    else if (pl->penetrate)
        why = "keep and drop on penetrating dice ('!p'), which choose single rolls";
    else if (rtok)
        why = "keep and drop on exploding dice with a reroll, which there rerolls "
              "single rolls";
    else if (ctok)
        why = "keep and drop on exploding dice with a clamp";
    else if (pl->explode_once || pl->explode_cap || pl->has_first_trigger ||
             pl->has_reroll_one || pl->extra)
        why = "keep and drop on exploding dice with another modifier of the explosion";
    else if (!alea__cond_at_end(&pl->die, &pl->trigger))
        why = "keep and drop on exploding dice whose explosion faces lie between the "
              "other faces";
    if (why)
        return unsupported(p, ktok, why);
    pl->keep_rolls = 1;
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

/* The checks of the keep, drop and selection steps, and of rolled sides,
 * that run before the term's node is made; the steps stored in the pool. */
static alea_status finish_steps(parser *p, alea__mods *m)
{
    alea_status st;
    pool *pl = m->pl;
    pl->nkeeps = m->nkeeps; /* for check_order */
    if ((st = check_order(p, pl, m->ctok, m->rtok, m->etok, m->xtok,
                          m->ktok ? m->ktok : m->seltok)) != ALEA_OK)
        return st;
    if (m->nkeeps > 0 && pl->explode == EXPLODE_EACH &&
        (p->dl->keep_rolls || (m->xtok && p->dl->written_order)) &&
        (st = keep_singles(p, pl, m->nkeeps, m->ktok, m->rtok, m->ctok)) != ALEA_OK)
        return st;
    if (m->nkeeps > 1 && p->dl->keep_whole &&
        (st = keep_whole(p, pl, m->keeps, &m->nkeeps, m->start)) != ALEA_OK)
        return st;
    if (pl->sides_expr && (st = check_rolled_sides(p, pl, m->etok, m->stok)) != ALEA_OK)
        return st;
    pl->keeps = m->keeps;
    pl->nkeeps = m->nkeeps;
    int singles;
    if ((st = finish_select(p, pl, &m->sel, m->seltok, m->xtok, &singles)) != ALEA_OK ||
        (singles && (st = keep_singles(p, pl, pl->nkeeps, m->seltok, m->rtok, m->ctok)) !=
                        ALEA_OK))
        return st;
    return ALEA_OK;
}

/* The term n with its margin: n - value, or value - n (below). */
alea_status alea__mods_margin(parser *p, const alea__mods *mods, const node *n,
                              const node **out)
{
    const margin *m = &mods->ms;
    *out = n;
    if (!m->tok || m->value == 0)
        return ALEA_OK;
    alea_status st;
    node *num, *sum;
    const node **items = p_alloc(p, 2 * sizeof *items);
    uint8_t *ops = p_alloc(p, 2);
    if (!items || !ops)
        return alea__nomem(p->ctx);
    if ((st = new_node(p, N_NUM, m->tok->start, p->t[p->pos - 1].end, &num)) != ALEA_OK ||
        (st = new_node(p, N_SUM, n->start, n->end, &sum)) != ALEA_OK)
        return st;
    num->u.num = m->value;
    items[0] = m->below ? num : n;
    items[1] = m->below ? n : num;
    ops[0] = OP_ADD;
    ops[1] = OP_SUB;
    sum->u.chain.items = items;
    sum->u.chain.ops = ops;
    sum->u.chain.n = 2;
    *out = sum;
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
    pool *pl = p_alloc(p, sizeof *pl);
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
    int any = alea__mods_at(peek(p));
    if ((any && (st = alea__mods_read(p, &m, &any)) != ALEA_OK) ||
        (st = finish_steps(p, &m)) != ALEA_OK)
        return st;
    node *n;
    if ((st = new_node(p, N_DICE, start, p->t[p->pos - 1].end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    if (any && (st = alea__mods_check(p, &m)) != ALEA_OK)
        return st;
    return alea__mods_margin(p, &m, n, out);
}
