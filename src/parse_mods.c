/*
 * parse_mods.c -- the modifiers of a dice term: "3d6!>5", "10d10>=8f1",
 * "4d6kh3", "2d20ro<3", "4d6k{h1,l1}", each a row of the table in mods.h
 * (its parse, its check of the whole pool, its dialect's refusal); their
 * conditions are read by parse_dice.c (alea__p_cond).
 */
#include "mods.h"
#include "pool.h"

static int starts_cond(const parser *p)
{
    return alea__p_starts_cond(p, 1); /* after "r", where "<>" is not equal */
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
        alea_status st = alea__p_cond(p, &which, "the face to reroll (as in r1=1)");
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

/* d20's selector of the highest or lowest dice right after its "ro" or
 * "ra" at op ("rol1", "rah1"): *high and *n set, its tokens taken; 0 when
 * there is none. */
static int d20_rank_selector(parser *p, const token *op, int *high, int64_t *n)
{
    const token *h = peek(p);
    if (!p->dl->d20_select || (h->kind != T_H && h->kind != T_L) || h->start != op->end ||
        peek_at(p, 1)->kind != T_NUM)
        return 0;
    *high = h->kind == T_H;
    advance(p);
    *n = advance(p)->num;
    return 1;
}

/* ---- selections ("k{1,2,3}", d20's "k1k2k3", "pl1") -------------------------- */

/* item = ("h" | "l") NUM | cond */
static alea_status parse_sel_item(parser *p, sel_buf *b, const token *t)
{
    alea_status st;
    if ((st = count_nodes(p, 1, t->start, peek(p)->end)) != ALEA_OK ||
        (st = alea__p_grow(p, (void **)&b->items, b->nitems, &b->itemcap, sizeof *b->items,
                           4)) != ALEA_OK)
        return st;
    select_item *it = &b->items[b->nitems];
    memset(it, 0, sizeof *it);
    if (at(p, T_H) || at(p, T_L)) {
        it->kind = advance(p)->kind == T_H ? SEL_HIGH : SEL_LOW;
        if (!at(p, T_NUM))
            return err_at(p, peek(p), "how many dice to select (as in h3)");
        it->n = advance(p)->num;
    } else {
        it->kind = SEL_VALUE;
        if ((st = alea__p_cond(p, &it->c, "a selection (as in 3, >3, <3, h3 or l1)")) != ALEA_OK)
            return st;
    }
    b->ops[b->nops - 1].n++;
    b->nitems++;
    return ALEA_OK;
}

/* Starts a step (keep, or drop), or joins the one just before (d20: steps
 * of one kind in a row add up). */
static alea_status sel_step(parser *p, sel_buf *b, int drop, int join)
{
    if (join && b->after == p->pos && b->ops[b->nops - 1].drop == drop)
        return ALEA_OK;
    alea_status st = alea__p_grow(p, (void **)&b->ops, b->nops, &b->opcap, sizeof *b->ops, 4);
    if (st != ALEA_OK)
        return st;
    b->ops[b->nops].drop = (uint8_t)drop;
    b->ops[b->nops].first = b->nitems;
    b->ops[b->nops].n = 0;
    b->nops++;
    return ALEA_OK;
}

/*
 * select = ("k" | "p") "{" item { "," item } "}"
 * In Avrae's d20 dialect also: ("k" | "p") selector, as "k3", "k>3", "kh3"
 * ("kh" and "kl" are one token), "pl1"; consecutive steps of one kind add up.
 * Leaves the "k" to the keep row when it is alea's keep.
 */
static alea_status select_steps(parser *p, sel_buf *b, const token *t, int *taken)
{
    alea_status st;
    int drop = t->kind == T_P;
    if (peek_at(p, 1)->kind == T_LBRACE && peek_at(p, 1)->start == t->end &&
        (t->kind == T_K || t->kind == T_P)) {
        advance(p);
        const token *open = advance(p);
        if ((st = sel_step(p, b, drop, 0)) != ALEA_OK)
            return st;
        do {
            if ((st = parse_sel_item(p, b, t)) != ALEA_OK)
                return st;
        } while (accept(p, T_COMMA));
        if ((st = expect(p, T_RBRACE, "',' or '}' after a selection")) != ALEA_OK)
            return st;
        (void)open;
        *taken = 1;
        b->after = 0; /* braces are a step of their own */
        return ALEA_OK;
    }
    if (!p->dl->d20_select)
        return ALEA_OK;
    if ((st = sel_step(p, b, drop, 1)) != ALEA_OK)
        return st;
    advance(p);
    if (t->kind == T_KH || t->kind == T_KL) {
        /* "kh3": the token holds the selector's letter */
        if ((st = count_nodes(p, 1, t->start, t->end)) != ALEA_OK ||
            (st = alea__p_grow(p, (void **)&b->items, b->nitems, &b->itemcap, sizeof *b->items,
                               4)) != ALEA_OK)
            return st;
        select_item *it = &b->items[b->nitems];
        memset(it, 0, sizeof *it);
        it->kind = t->kind == T_KH ? SEL_HIGH : SEL_LOW;
        if (!at(p, T_NUM))
            return err_at(p, peek(p), "how many dice to keep (as in kh3)");
        it->n = advance(p)->num;
        b->ops[b->nops - 1].n++;
        b->nitems++;
    } else if ((st = parse_sel_item(p, b, t)) != ALEA_OK) {
        return st;
    }
    *taken = 1;
    b->after = p->pos;
    return ALEA_OK;
}

static alea_status parse_select(parser *p, alea__mods *m, const token *t, int *taken)
{
    if (!m->seltok)
        m->seltok = t;
    alea_status st = select_steps(p, &m->sel, t, taken);
    if (st == ALEA_OK && !*taken && m->seltok == t)
        m->seltok = NULL;
    return st;
}

/* ---- several reroll conditions ("2d8r8r2") ----------------------------------- */

/*
 * reroll = ("r" | "ro") cond, again on a die that has one: another
 * condition (Roll20's "2d8r8r2", "2d8r<2r8"), of the same kind, where the
 * dialect reads them so. *buf and *cap hold the conditions while the term
 * is parsed.
 */
static alea_status parse_reroll_also(parser *p, pool *pl, const token *first, cond **buf,
                                     uint32_t *cap)
{
    alea_status st;
    const token *t = peek(p);
    if (!p->dl->several_rerolls) {
        if (p->dl->written_order)
            return unsupported(p, t, "several rerolls on one die, which there act one "
                                     "after another");
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "a die can have only one reroll modifier, second one at byte %u",
                           (unsigned)t->start);
    }
    if ((t->kind == T_RO) != (pl->reroll_once != 0))
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "'r' and 'ro' together on one die are not supported yet (byte "
                           "%u): write every condition with '%s', as the first at byte %u",
                           (unsigned)t->start, pl->reroll_once ? "ro" : "r",
                           (unsigned)first->start);
    if (1u + pl->nreroll_also >= ALEA__REROLLS_MAX)
        return alea__error(p->ctx, ALEA_ERR_LIMIT, t->start, t->end,
                           "too many reroll conditions on one die at byte %u (limit is %d)",
                           (unsigned)t->start, ALEA__REROLLS_MAX);
    advance(p);
    if ((st = count_nodes(p, 1, t->start, t->end)) != ALEA_OK ||
        (st = alea__p_grow(p, (void **)buf, pl->nreroll_also, cap, sizeof **buf, 4)) != ALEA_OK ||
        (st = alea__p_cond_ne(p, &(*buf)[pl->nreroll_also],
                            "a reroll condition (as in r1, r<3, ro<=2)")) != ALEA_OK)
        return st;
    pl->reroll_also = *buf;
    pl->nreroll_also++;
    return ALEA_OK;
}

/* ---- per-die modifiers: clamps, other tools' explosions, markers ---------- */

/* "min"/"max" as a whole run of letters is a name (the calls min(a, b));
 * right after a dice term, glued to it and before a number, it is a clamp
 * ("4d6min3"). */
static int clamp_word(const parser *p, const token *t)
{
    if (t->end - t->start != 3 || t->start != p->t[p->pos - 1].end)
        return 0;
    const char *w = p->src + t->start;
    int lo = (w[0] | 0x20) == 'm' && (w[1] | 0x20) == 'i' && (w[2] | 0x20) == 'n';
    int hi = (w[0] | 0x20) == 'm' && (w[1] | 0x20) == 'a' && (w[2] | 0x20) == 'x';
    tok_kind next = (tok_kind)peek_at(p, 1)->kind;
    return (lo || hi) && (next == T_NUM || next == T_MINUS);
}

/*
 * clamp = ("min" | "max" | "mi" | "ma") signed
 * Written after the explosion, a clamp acts on every roll of the chain
 * after the trigger saw its face; before it (or in rpg-dice-roller's
 * dialect, anywhere), on the first roll, which the trigger then sees.
 */
static alea_status parse_clamp(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    pool *pl = m->pl;
    if (t->kind == T_NAME && !clamp_word(p, t))
        return ALEA_OK;
    *taken = 1;
    int after_explode = m->etok != NULL;
    const token **ctok = &m->ctok;
    int hi = t->kind == T_MAX || (t->kind == T_NAME && (p->src[t->start + 1] | 0x20) == 'a');
    advance(p);
    int64_t v;
    if ((st = alea__p_signed(p, &v, "the clamp's value (as in min3, max5)")) != ALEA_OK)
        return st;
    if (hi ? pl->has_clamp_hi : pl->has_clamp_lo)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, p->t[p->pos - 1].end,
                           "'%s' given twice, second at byte %u", hi ? "max" : "min",
                           (unsigned)t->start);
    uint8_t all = (uint8_t)(after_explode && !p->dl->clamp_first);
    if (ALEA__CLAMPED(pl) && pl->clamp_all != all)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, p->t[p->pos - 1].end,
                           "clamps on both sides of the explosion are not supported yet "
                           "(byte %u): write 'min' and 'max' together",
                           (unsigned)t->start);
    pl->clamp_all = all;
    *(hi ? &pl->has_clamp_hi : &pl->has_clamp_lo) = 1;
    *(hi ? &pl->clamp_hi : &pl->clamp_lo) = v;
    if (pl->has_clamp_lo && pl->has_clamp_hi && pl->clamp_lo > pl->clamp_hi)
        return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, p->t[p->pos - 1].end,
                           "the clamps min%lld and max%lld leave no value (byte %u)",
                           (long long)pl->clamp_lo, (long long)pl->clamp_hi,
                           (unsigned)t->start);
    if (!*ctok)
        *ctok = t;
    return ALEA_OK;
}

/* Whether a comparison (not a bare number) starts here. */
static int at_comparison(const parser *p)
{
    tok_kind k = (tok_kind)peek(p)->kind;
    return k == T_EQ || k == T_LT || k == T_LE || k == T_GT || k == T_GE;
}

/*
 * Foundry's explosions, read in every dialect:
 * xplode = ("x" | "xo") [NUM] [cond]
 * "x6" and "x>=5" give the trigger; "x5=10" (a number, then a condition)
 * explodes on 10 at most 5 times in the whole pool; "xo" explodes each die
 * once at most. d20's "e" takes a selector: "e6", "e>5", "e<2".
 */
static alea_status parse_xplode(parser *p, pool *pl, const token *t)
{
    alea_status st;
    pl->explode = EXPLODE_EACH;
    pl->explode_once = t->kind == T_XO;
    pl->trigger.op = CMP_EQ;
    pl->trigger.value = pl->die.hi;
    if (t->kind == T_E) {
        if ((at(p, T_H) || at(p, T_L)) && peek_at(p, 1)->kind == T_NUM)
            /* d20's selectors "h1" and "l1" pick dice, not faces */
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, peek_at(p, 1)->end,
                               "%s: 'e' with the selector '%c%lld' (explode the %s dice, "
                               "again while a new die is among them) is not supported yet "
                               "in this dialect (byte %u); a face selector is, as in e6, "
                               "e>5, e<2",
                               p->dl->tool, at(p, T_H) ? 'h' : 'l',
                               (long long)peek_at(p, 1)->num,
                               at(p, T_H) ? "highest" : "lowest", (unsigned)t->start);
        if (!alea__p_starts_cond(p, 0))
            return err_at(p, peek(p), "a selector after 'e' (as in e6, e>5, e<2)");
        pl->trigger_written = 1;
        return alea__p_cond(p, &pl->trigger, "a selector after 'e' (as in e6, e>5, e<2)");
    }
    if (at(p, T_NUM) && (peek_at(p, 1)->kind == T_EQ || peek_at(p, 1)->kind == T_LT ||
                         peek_at(p, 1)->kind == T_LE || peek_at(p, 1)->kind == T_GT ||
                         peek_at(p, 1)->kind == T_GE)) {
        const token *n = advance(p);
        if (n->num < 1 || n->num > p->ctx->limits[ALEA_LIMIT_DICE])
            return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                               "the number of explosions %lld at byte %u must be from 1 to "
                               "the dice limit %lld",
                               (long long)n->num, (unsigned)n->start,
                               (long long)p->ctx->limits[ALEA_LIMIT_DICE]);
        pl->explode_cap = n->num;
    }
    if (at(p, T_NUM) || at_comparison(p)) {
        pl->trigger_written = 1;
        if ((st = alea__p_cond(p, &pl->trigger, "an explosion condition")) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/*
 * An "x" after an "xo" on the same die (Foundry's "5d10xo<8x10"): Foundry
 * explodes each first roll matching the "xo" once, then every roll, new
 * ones too, matching the "x", again and again. One chain per die says it
 * when no face matches both: the first roll explodes on either, the others
 * on the "x"'s. Refused otherwise, and with rolled sides, as not yet read.
 */
static alea_status second_explosion(parser *p, pool *pl, const token *t)
{
    alea_status st;
    cond first = pl->trigger;
    if ((st = parse_xplode(p, pl, t)) != ALEA_OK)
        return st;
    const die_spec *d = &pl->die;
    uint64_t nf = alea__die_nfaces(d), both = 0, any = 0;
    const char *why = pl->explode_cap ? "with a cap"
                      : pl->sides_expr ? "on rolled sides"
                      : nf > (uint64_t)p->ctx->limits[ALEA_LIMIT_SUPPORT] ? "on so many faces"
                                                                             : NULL;
    for (uint64_t i = 0; !why && i < nf; i++) {
        int64_t f = alea__die_face(d, i);
        int a = alea__cond_match(&first, f), b = alea__cond_match(&pl->trigger, f);
        both += a && b;
        any += a || b;
    }
    if (!why && (both || any == nf))
        why = both ? "whose conditions both match a face (Foundry VTT adds two dice there)"
                   : "whose conditions together match every face";
    if (why)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "an 'x' after an 'xo' on one die %s is not supported yet (byte %u)",
                           why, (unsigned)t->start);
    pl->has_first_trigger = 1;
    pl->first_trigger = first;
    return ALEA_OK;
}

/*
 * mark = ("cs" | "cf") [cond]
 * Critical markers: which faces the breakdown marks (Roll20,
 * rpg-dice-roller, alea). In Foundry's dialect "cs" counts the dice that
 * match (the highest face without a condition), "cf" counts failures (the
 * lowest face), and "df" after "cs" takes one off for each failure (the
 * dice that are not successes, without a condition). A "d" else is a
 * drop, the keep row's.
 */
static alea_status parse_mark(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    pool *pl = m->pl;
    const token **stok = &m->stok;
    int fail = t->kind == T_CF;
    int deduct = t->kind == T_D; /* Foundry's "df" */
    if (deduct && !(p->dl->cs_counts && peek_at(p, 1)->kind == T_F &&
                    peek_at(p, 1)->start == t->end))
        return ALEA_OK;
    *taken = 1;
    advance(p);
    if (deduct)
        advance(p); /* the "f" */
    cond c = {CMP_EQ, fail || deduct ? pl->die.lo : pl->die.hi};
    int written = alea__p_starts_cond(p, 1);
    if (written && (st = alea__p_cond_ne(p, &c, "a condition (as in cs>=19, cf<3)")) != ALEA_OK)
        return st;
    if (!p->dl->cs_counts) {
        if (fail ? pl->has_fumble : pl->has_crit) {
            /* "1d20cs20cs10": a face that any of them matches (Roll20) */
            uint8_t *n = fail ? &pl->nfumble_also : &pl->ncrit_also;
            const cond **also = fail ? &pl->fumble_also : &pl->crit_also;
            if (1u + *n >= ALEA__MARKS_MAX)
                return alea__error(p->ctx, ALEA_ERR_LIMIT, t->start, t->end,
                                   "too many '%s' markers on one die at byte %u (limit is %d)",
                                   fail ? "cf" : "cs", (unsigned)t->start, ALEA__MARKS_MAX);
            cond *b = p_alloc(p, (*n + 1u) * sizeof *b);
            if (!b)
                return alea__nomem(p->ctx);
            if (*n)
                memcpy(b, *also, *n * sizeof *b);
            b[*n] = c;
            *also = b;
            ++*n;
            return count_nodes(p, 1, t->start, t->end);
        }
        *(fail ? &pl->has_fumble : &pl->has_crit) = 1;
        *(fail ? &pl->fumble : &pl->crit) = c;
        return ALEA_OK;
    }
    if (deduct) {
        if (!pl->has_success || pl->has_failure || !*stok || (*stok)->kind != T_CS)
            return unsupported(p, t, "'df' other than once after 'cs'");
        if (!written) { /* the dice that are not successes */
            static const uint8_t negate[] = {[CMP_EQ] = CMP_NE, [CMP_NE] = CMP_EQ,
                                             [CMP_LT] = CMP_GE, [CMP_LE] = CMP_GT,
                                             [CMP_GT] = CMP_LE, [CMP_GE] = CMP_LT};
            c.op = negate[pl->success.op];
            c.value = pl->success.value;
        }
        pl->has_failure = 1;
        pl->failure = c;
        return ALEA_OK;
    }
    if (pl->has_success)
        return unsupported(p, t, "a second count, which there replaces the first");
    pl->has_success = 1;
    pl->success = c;
    *stok = t;
    return ALEA_OK;
}

/* ---- unique ("u", "uo": rpg-dice-roller's) ------------------------------------ */

/*
 * unique = ("u" | "uo") [("=" | "<>" | "<" | "<=" | ">" | ">=") signed]
 * A die whose face an earlier die of the pool shows is rolled again until
 * the face is new ("u") or once, the second face standing ("uo"); with a
 * condition, only the faces it matches must be new. The condition needs
 * its operator, as rpg-dice-roller's compare points do ("4d6u - 1" is a
 * subtraction); so "3d6u>3" is a condition of "u", and a success count
 * goes before it ("3d6>3u").
 */
static alea_status refused_unique(parser *p, const token *t)
{
    const char *name = t->kind == T_U ? "u" : "uo";
    if (p->dl->no_unique)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "%s has no '%s' (rerolling dice that show the same face) at "
                           "byte %u: it is rpg-dice-roller's (--dialect rpgdr) and alea's",
                           p->dl->tool, name, (unsigned)t->start);
    return ALEA_OK;
}

static alea_status parse_unique(parser *p, alea__mods *m, const token *t, int *taken)
{
    pool *pl = m->pl;
    const token **utok = &m->utok;
    *taken = 1;
    if (*utok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "unique ('u', 'uo') given twice, second at byte %u",
                           (unsigned)t->start);
    *utok = advance(p);
    pl->unique = t->kind == T_U ? UNIQUE_ALL : UNIQUE_ONCE;
    switch (peek(p)->kind) {
    case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
        pl->has_unique_cond = 1;
        return alea__p_cond_ne(p, &pl->unique_cond,
                             "a condition after 'u' (as in u=5, u<=2)");
    default:
        return ALEA_OK;
    }
}

/*
 * What unique works with: plain dice of a written count and sides (their
 * keep, drop, selections, success counts, sorting and markers act after
 * it, as in rpg-dice-roller's order). "u" on more dice than the die has
 * faces it must keep apart could never end: refused (rpg-dice-roller gives
 * up after 1000 rolls and keeps a repeated face).
 */
static alea_status check_unique(parser *p, const alea__mods *m)
{
    const pool *pl = m->pl;
    const token *utok = m->utok;
    if (!utok)
        return ALEA_OK;
    const char *with = pl->has_reroll || pl->has_reroll_one ? "a reroll"
                       : pl->explode != EXPLODE_NONE        ? "an explosion"
                       : ALEA__CLAMPED(pl)                  ? "a clamp"
                       : pl->count_expr                     ? "a rolled number of dice"
                       : pl->sides_expr                     ? "rolled sides"
                                                            : NULL;
    if (with)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, utok->start, utok->end,
                           "unique ('%.*s') with %s is not supported yet (byte %u)",
                           (int)(utok->end - utok->start), p->src + utok->start, with,
                           (unsigned)utok->start);
    if (pl->unique != UNIQUE_ALL ||
        (pl->has_unique_cond && !alea__cond_all(&pl->die, &pl->unique_cond, NULL)))
        return ALEA_OK; /* "uo" ends; a face the condition leaves free ends "u" */
    uint64_t faces = alea__die_distinct_faces(&pl->die, (uint64_t)pl->count);
    if ((uint64_t)pl->count > faces)
        return alea__error(p->ctx, ALEA_ERR_INVALID, utok->start, utok->end,
                           "%lld dice cannot all show different faces: the die has %llu "
                           "(byte %u); rpg-dice-roller stops after 1000 rolls and keeps a "
                           "repeated face, alea refuses",
                           (long long)pl->count, (unsigned long long)faces,
                           (unsigned)utok->start);
    return ALEA_OK;
}

/* ---- Foundry's margin of success, and what is refused by name ---------------- */

/*
 * margin = "ms" [ "=" | ">" | ">=" | "<" | "<=" ] NUM
 * Foundry's margin of success: with "<" or "<=" the target minus the
 * term, else the term minus the target (a target of 0 leaves the term, as
 * Foundry reads it).
 */
static alea_status parse_margin(parser *p, alea__mods *mods, const token *t, int *taken)
{
    margin *m = &mods->ms;
    *taken = 1;
    if (m->tok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "'ms' given twice, second at byte %u", (unsigned)t->start);
    advance(p);
    tok_kind k = (tok_kind)peek(p)->kind;
    m->below = k == T_LT || k == T_LE;
    if (k == T_EQ || k == T_GT || k == T_GE || k == T_LT || k == T_LE)
        advance(p);
    if (!at(p, T_NUM))
        return err_at(p, peek(p), "the margin's target (as in ms>10 or ms<10)");
    m->value = advance(p)->num;
    m->tok = t;
    return ALEA_OK;
}

static alea_status refused_margin(parser *p, const token *t)
{
    if (!p->dl->margin)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "'ms' at byte %u is Foundry VTT's margin of success "
                           "(--dialect foundry); alea writes the subtraction, as in "
                           "4d6 - 10 or 10 - 4d6",
                           (unsigned)t->start);
    return ALEA_OK;
}

/* "even", "odd" (Foundry VTT's): the value is the number of dice showing
 * an even (odd) face, a success count whose condition is the parity. */
static alea_status parse_parity(parser *p, alea__mods *m, const token *t, int *taken)
{
    pool *pl = m->pl;
    const token **stok = &m->stok;
    *taken = 1;
    advance(p);
    if (*stok || pl->has_success)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "success counting given twice, second at byte %u",
                           (unsigned)t->start);
    *stok = t;
    pl->has_success = 1;
    pl->success.op = t->kind == T_EVEN ? CMP_EVEN : CMP_ODD;
    pl->success.value = 0;
    return ALEA_OK;
}

/* Other tools' modifiers that alea does not read yet, refused by name
 * rather than as an unknown word; an "s" but Foundry's "sf" is a sort. */
static alea_status refused_mod(parser *p, const token *t)
{
    if (t->kind == T_S && !(peek_at(p, 1)->kind == T_F && peek_at(p, 1)->start == t->end &&
                            p->dl->cs_counts))
        return ALEA_OK;
    const char *what;
    switch (t->kind) {
    case T_M: what = "'m' (Roll20: mark the dice that match another)"; break;
    case T_MT: what = "'mt' (Roll20: count the sets of matching dice)"; break;
    default: what = "'sf' (Foundry VTT: subtract the values of failed dice)"; break;
    }
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "%s at byte %u is not supported yet", what, (unsigned)t->start);
}

/* ---- sorting, keep and drop, rerolls, explosions, success counts ------------- */

/* sort = "s" | "sa" | "sd" */
static alea_status parse_sort(parser *p, alea__mods *m, const token *t, int *taken)
{
    pool *pl = m->pl;
    *taken = 1;
    if (pl->sort)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "sorting given twice, second at byte %u", (unsigned)t->start);
    pl->sort = advance(p)->kind == T_SD ? SORT_DESC : SORT_ASC;
    return ALEA_OK;
}

/* keep = ("kh" | "kl" | "dh" | "dl" | "k" | "d") [NUM] */
static alea_status parse_keep(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    uint8_t kop;
    switch (t->kind) {
    case T_KH: case T_K: kop = KEEP_HIGH; break;
    case T_KL: kop = KEEP_LOW; break;
    case T_DH: kop = DROP_HIGH; break;
    default: kop = DROP_LOW; break; /* "dl", "d" */
    }
    *taken = 1;
    if (!m->ktok)
        m->ktok = t;
    advance(p);
    int64_t k = 1;
    if (at(p, T_NUM))
        k = advance(p)->num;
    if ((st = alea__p_grow(p, (void **)&m->keeps, m->nkeeps, &m->kcap, sizeof *m->keeps, 2)) !=
            ALEA_OK ||
        (st = count_nodes(p, 1, t->start, t->end)) != ALEA_OK)
        return st;
    m->keeps[m->nkeeps].op = kop;
    m->keeps[m->nkeeps].n = k;
    m->nkeeps++;
    return ALEA_OK;
}

/*
 * reroll = ("r" | "ro") cond
 * Where the dialects read it otherwise: another "r" on a die that has one
 * (parse_reroll_also), d20's "rol1" and "rr", rpg-dice-roller's bare "r",
 * Foundry's "r" once and its "r1=1" (reroll_count).
 */
static alea_status parse_reroll(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    pool *pl = m->pl;
    int high = 0;
    int64_t rank = 0; /* d20's "rol1", "rah2" */
    *taken = 1;
    if (m->rtok)
        return parse_reroll_also(p, pl, m->rtok, &m->also, &m->alsocap);
    m->rtok = advance(p);
    if (t->kind == T_RO && d20_rank_selector(p, t, &high, &rank)) {
        /* d20's "rol1": the lowest die rolled again once, the new
         * face standing: alea's "ra" on any face */
        if (high || rank != 1)
            return unsupported(p, t, "rerolling once the highest dice, or more "
                                     "than one of the lowest (rol1 is read)");
        if (pl->has_reroll_one)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                               "'ra' given twice, second at byte %u", (unsigned)t->start);
        m->rtok = NULL;
        pl->has_reroll_one = 1;
        pl->reroll_one.op = CMP_GE;
        pl->reroll_one.value = pl->die.lo;
        return ALEA_OK;
    }
    pl->has_reroll = 1;
    pl->reroll_once = t->kind == T_RO;
    if (t->kind == T_R && !p->dl->rr && at(p, T_R) && peek(p)->start == t->end)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, peek(p)->end,
                           "'rr' at byte %u is the reroll until no match of Foundry "
                           "VTT and Avrae's d20 (--dialect foundry or d20); alea "
                           "writes a single r, as in r1 or r<3",
                           (unsigned)t->start);
    if (t->kind == T_R && p->dl->rr && at(p, T_R) && peek(p)->start == t->end) {
        m->rtok = advance(p); /* "rr": until no match, as alea's "r" */
    } else if (p->dl->bare_reroll && !starts_cond(p)) {
        /* rpg-dice-roller: a bare "r" or "ro" rerolls the lowest face */
        pl->reroll.op = CMP_EQ;
        pl->reroll.value = pl->die.lo;
        return ALEA_OK;
    } else if (t->kind == T_R && p->dl->reroll_once) {
        /* Foundry: "r" rerolls once; bare, the lowest face */
        pl->reroll_once = 1;
        if (!starts_cond(p)) {
            pl->reroll.op = CMP_EQ;
            pl->reroll.value = pl->die.lo;
            return ALEA_OK;
        }
    }
    if ((st = alea__p_cond_ne(p, &pl->reroll, "a reroll condition (as in r1, r<3, ro<=2)")) !=
        ALEA_OK)
        return st;
    return reroll_count(p, m->rtok, pl);
}

/* "ra" cond: one die rerolled once, the new face standing; in d20's
 * dialect (ra_adds) one more die, once in the pool, an explosion. */
static alea_status parse_reroll_one(parser *p, alea__mods *m, const token *t, int *taken)
{
    pool *pl = m->pl;
    int high = 0;
    int64_t rank = 0; /* d20's "ral1", "rah2" */
    *taken = 1;
    if (p->dl->ra_adds) {
        if (m->etok)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                               "a die can explode only one way, 'ra' at byte %u",
                               (unsigned)t->start);
        m->etok = m->xtok = advance(p);
        pl->explode = EXPLODE_EACH;
        pl->explode_once = 1;
        pl->explode_cap = 1;
        pl->trigger_written = 1;
        if (d20_rank_selector(p, t, &high, &rank)) {
            /* "ral1", "rah2": the selection always holds a die, and
             * one more die is added: a trigger on any face */
            if (rank < 1)
                return unsupported(p, t, "'ra' on no dice ('ral0')");
            pl->trigger.op = CMP_GE;
            pl->trigger.value = pl->die.lo;
            return ALEA_OK;
        }
        return alea__p_cond(p, &pl->trigger, "a selector after 'ra' (as in ra1, ra<3)");
    }
    if (pl->has_reroll_one)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "'ra' given twice, second at byte %u", (unsigned)t->start);
    advance(p);
    pl->has_reroll_one = 1;
    return alea__p_cond_ne(p, &pl->reroll_one, "a condition for the die to reroll (as in ra1)");
}

static alea_status refused_e(parser *p, const token *t)
{
    if (t->kind == T_E && !p->dl->e_explode)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "'e' at byte %u explodes in Avrae's d20 (--dialect d20); "
                           "alea writes '!' (as in 4d6!)",
                           (unsigned)t->start);
    return ALEA_OK;
}

/* The other tools' explosions (parse_xplode); an "x" apart from the dice
 * is not theirs. */
static alea_status parse_xplode_mod(parser *p, alea__mods *m, const token *t, int *taken)
{
    pool *pl = m->pl;
    if (t->kind == T_X && t->start != p->t[p->pos - 1].end)
        return ALEA_OK;
    *taken = 1;
    if (m->etok && t->kind == T_X && m->xtok && m->xtok->kind == T_XO && !pl->explode_cap &&
        !pl->has_first_trigger) {
        /* Foundry's "xo<8x10": once on the first's, ever on the second's */
        advance(p);
        return second_explosion(p, pl, t);
    }
    if (m->etok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "a die can explode only one way, second explosion "
                           "at byte %u",
                           (unsigned)t->start);
    m->etok = m->xtok = advance(p);
    return parse_xplode(p, pl, t);
}

/* explode = "!" ["!"] ["p"] [cond]; d20's "!=" (bang_ne) is a comparison,
 * not an explosion. */
static alea_status parse_explode(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    pool *pl = m->pl;
    if (peek_at(p, 1)->kind == T_EQ && peek_at(p, 1)->start == t->end) {
        if (p->dl->bang_ne)
            return ALEA_OK;
        if (p->dl->hints)
            alea__p_hint(p, "'!=' after dice explodes each die on the face that "
                            "follows; to compare the total write <> (in Avrae's d20 "
                            "'!=' is \"not equal\": --dialect d20)");
    }
    *taken = 1;
    if (m->etok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "a die can explode only one way, second '!' "
                           "modifier at byte %u",
                           (unsigned)t->start);
    m->etok = advance(p);
    pl->explode = EXPLODE_EACH;
    if (at(p, T_BANG) && peek(p)->start == m->etok->end) {
        advance(p);
        pl->explode = EXPLODE_COMPOUND;
    }
    /* "!p": penetrating; "!p{h1}" is "!" and a selection */
    if (at(p, T_P) && !(peek_at(p, 1)->kind == T_LBRACE && peek_at(p, 1)->start == peek(p)->end) &&
        accept(p, T_P))
        pl->penetrate = 1;
    pl->trigger.op = CMP_EQ;
    pl->trigger.value = pl->die.hi;
    switch (peek(p)->kind) {
    case T_NE:
        if (!p->dl->not_equal)
            break;
        /* fall through */
    case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE: case T_NUM:
        if ((st = alea__p_cond(p, &pl->trigger, "an explosion condition")) != ALEA_OK)
            return st;
        pl->trigger_written = 1;
        break;
    default:
        break;
    }
    return ALEA_OK;
}

/*
 * success = ("=" | "<" | "<=" | ">" | ">=") signed ["f" cond]
 * "<>" only where the dialect has it (not_equal); in d20's (cmp_total)
 * a comparison of the total, which ends the term.
 */
static alea_status parse_success(parser *p, alea__mods *m, const token *t, int *taken)
{
    alea_status st;
    pool *pl = m->pl;
    size_t start = m->start;
    if ((t->kind == T_NE && !p->dl->not_equal) || p->dl->cmp_total)
        return ALEA_OK;
    *taken = 1;
    if (m->stok)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "success counting given twice, second at byte %u "
                           "(to compare the total, put the dice in parentheses)",
                           (unsigned)t->start);
    m->stok = t;
    pl->has_success = 1;
    /* One die, not exploding, alone: counting it is comparing it, and
     * "sum(8, d20 >= 18)" needs no hint. */
    int one_die = !pl->count_expr && pl->count == 1 && !pl->explode && p->sum_start >= start;
    if (t->start > p->t[p->pos - 1].end && p->dl->hints && !one_die)
        /* "3d6 >= 5", as AnyDice or icepool write a comparison */
        alea__p_hint(p, "'%.*s' counts the dice that match '%.*s' (success counting, "
                        "as Roll20 does); to compare the total, write (%.*s) %.*s",
                     (int)(peek_at(p, 1)->end - start), p->src + start,
                     (int)(peek_at(p, 1)->end - t->start), p->src + t->start,
                     (int)trimmed_len(p, p->sum_start < start ? p->sum_start : start,
                                      t->start),
                     p->src + (p->sum_start < start ? p->sum_start : start),
                     (int)(peek_at(p, 1)->end - t->start), p->src + t->start);
    if ((t->kind == T_GT || t->kind == T_LT) && !p->hint[0] && p->dl->hints &&
        peek_at(p, 1)->kind == T_NUM && peek_at(p, 1)->num < INT64_MAX) {
        long long v = (long long)peek_at(p, 1)->num; /* "<3": 2 or less here */
        int gt = t->kind == T_GT;
        alea__p_hint(p, "'%c%lld' on dice counts %lld or %s; Roll20 reads it as %lld or "
                        "%s (--dialect roll20)",
                     gt ? '>' : '<', v, gt ? v + 1 : v - 1, gt ? "more" : "less", v,
                     gt ? "more" : "less");
    }
    if ((st = alea__p_cond(p, &pl->success, "a success threshold")) != ALEA_OK)
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
        return alea__p_cond_ne(p, &pl->failure, "a failure condition (as in f1, f<3)");
    }
    return ALEA_OK;
}

/* ---- the checks of the whole pool, run in the rows' order once it is read ----- */

/* Rerolls that leave no face. */
static alea_status check_reroll(parser *p, const alea__mods *m)
{
    const pool *pl = m->pl;
    const token *rtok = m->rtok;
    const die_spec *d = &pl->die;
    /* A reroll done once always ends ("1d1ro1": the second face stays). */
    int until = pl->has_reroll && !pl->reroll_once;
    if (until && pl->nreroll_also && !alea__pool_face_stays(d, pl, NULL))
        return alea__error(p->ctx, ALEA_ERR_INVALID, rtok->start, rtok->end,
                           "the reroll conditions at byte %u match every face of the die "
                           "together, so no roll could be kept",
                           (unsigned)rtok->start);
    if (until && !pl->nreroll_also && alea__cond_all(d, &pl->reroll, NULL))
        return alea__error(p->ctx, ALEA_ERR_INVALID, rtok->start, rtok->end,
                           "reroll condition %s%lld matches every face of the die, "
                           "so no roll could be kept (byte %u)",
                           alea__cond_op_str(pl->reroll.op), (long long)pl->reroll.value,
                           (unsigned)rtok->start);
    return ALEA_OK;
}

/* Explosions (every spelling's) that never start or never end. */
static alea_status check_explode(parser *p, const alea__mods *m)
{
    const pool *pl = m->pl;
    const token *etok = m->etok;
    const die_spec *d = &pl->die;
    if (pl->explode != EXPLODE_NONE && !alea__cond_any(d, &pl->trigger))
        return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                           "the explosion trigger %s%lld matches no face of the die, so "
                           "it would never explode (byte %u); to count successes on "
                           "exploding dice, give the trigger first, as in 3d6!!6>=7",
                           alea__cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                           (unsigned)etok->start);
    if (pl->explode != EXPLODE_NONE && !pl->explode_once && !pl->explode_cap) {
        /* With "r", rerolled faces never show; with "ro" they can. */
        const cond *gone = pl->has_reroll && !pl->reroll_once ? &pl->reroll : NULL;
        if (gone && pl->nreroll_also ? !alea__pool_face_stays(d, pl, &pl->trigger)
                                     : alea__cond_all(d, &pl->trigger, gone)) {
            if (!pl->trigger_written)
                return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                                   "explosion would never end: every roll of this die "
                                   "shows its maximum %lld (byte %u)",
                                   (long long)d->hi, (unsigned)etok->start);
            return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                               "explosion would never end: the trigger %s%lld matches "
                               "every face of the die (byte %u)",
                               alea__cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                               (unsigned)etok->start);
        }
    }
    return ALEA_OK;
}

/* Success counts that no die could reach. */
static alea_status check_success(parser *p, const alea__mods *m)
{
    const pool *pl = m->pl;
    const token *stok = m->stok;
    const die_spec *d = &pl->die;
    if (pl->has_success) {
        if (pl->explode == EXPLODE_EACH && (pl->nkeeps > 0 || pl->nselects > 0))
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "success counting on '!' dice with keep or drop is "
                               "ambiguous (byte %u): write '!!' to judge each die's "
                               "total, or drop the keep",
                               (unsigned)stok->start);
        /* the whole sum the dice end: "2d6 + 1d6 = 7" is (2d6 + 1d6) = 7 */
        size_t from = p->sum_start < m->start ? p->sum_start : m->start;
        if (ALEA__COND_PARITY(pl->success.op) && pl->explode != EXPLODE_COMPOUND &&
            !pl->penetrate && !ALEA__CLAMPED(pl) && !alea__cond_any(d, &pl->success))
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "no face of the die is %s, so no die could count (byte %u)",
                               alea__cmp_str(pl->success.op), (unsigned)stok->start);
        if (pl->explode != EXPLODE_COMPOUND && !pl->penetrate && !ALEA__CLAMPED(pl) &&
            !alea__cond_any(d, &pl->success) &&
            !(pl->has_failure && alea__cond_any(d, &pl->failure)))
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "no face of the die is %s %lld, so no die could count "
                               "as a success (byte %u); to compare a total, put it in "
                               "parentheses, as in (%.*s) %s %lld",
                               alea__cond_op_str(pl->success.op), (long long)pl->success.value,
                               (unsigned)stok->start,
                               (int)trimmed_len(p, from, stok->start), p->src + from,
                               alea__cond_op_str(pl->success.op), (long long)pl->success.value);
    }
    return ALEA_OK;
}

/* ---- the rows ---------------------------------------------------------------- */

/* A row's number: its bit in the table below. */
enum {
#define ALEA__MOD_NUMBER(a, name, kinds, parse, check, refused) ALEA__MOD_ROW_##name,
    ALEA__POOL_MODS(ALEA__MOD_NUMBER, 0) ALEA__MOD_NROWS
#undef ALEA__MOD_NUMBER
};
_Static_assert(ALEA__MOD_NROWS <= 16, "a row is a bit of a uint16_t (alea__mods_rows_of_kind)");

/* Whether k is one of a row's kinds (at most 6: checked below), as a
 * constant expression. */
#define ALEA__MOD_KINDS(...) __VA_ARGS__
#define ALEA__MOD_IN(k, ...) ALEA__MOD_IN_(k, __VA_ARGS__, -1, -1, -1, -1, -1, -1)
#define ALEA__MOD_IN_(k, a, b, c, d, e, f, ...)                                            \
    ((k) == (a) || (k) == (b) || (k) == (c) || (k) == (d) || (k) == (e) || (k) == (f))
#define ALEA__MOD_SIX(a, name, kinds, parse, check, refused)                               \
    _Static_assert(sizeof((int[]){ALEA__MOD_KINDS kinds}) <= 6 * sizeof(int),             \
                   "a row spells at most 6 token kinds (ALEA__MOD_IN)");
ALEA__POOL_MODS(ALEA__MOD_SIX, 0)
#undef ALEA__MOD_SIX

/* alea__mods_rows_of_kind[k]: the rows that spell token kind k, row i as
 * bit i (mods.h). */
#define ALEA__MOD_BIT(k, name, kinds, parse, check, refused)                               \
    | (ALEA__MOD_IN(k, ALEA__MOD_KINDS kinds) ? 1u << ALEA__MOD_ROW_##name : 0u)
#define ALEA__MOD_MASK(k) (0u ALEA__POOL_MODS(ALEA__MOD_BIT, k))
#define ALEA__MOD_MASK8(k)                                                                 \
    ALEA__MOD_MASK(k), ALEA__MOD_MASK(k + 1), ALEA__MOD_MASK(k + 2), ALEA__MOD_MASK(k + 3), \
        ALEA__MOD_MASK(k + 4), ALEA__MOD_MASK(k + 5), ALEA__MOD_MASK(k + 6),               \
        ALEA__MOD_MASK(k + 7)
const uint16_t alea__mods_rows_of_kind[] = {
    ALEA__MOD_MASK8(0),  ALEA__MOD_MASK8(8),  ALEA__MOD_MASK8(16),
    ALEA__MOD_MASK8(24), ALEA__MOD_MASK8(32), ALEA__MOD_MASK8(40),
    ALEA__MOD_MASK8(48), ALEA__MOD_MASK8(56), ALEA__MOD_MASK8(64),
    ALEA__MOD_MASK8(72)};
#undef ALEA__MOD_MASK8
#undef ALEA__MOD_MASK
#undef ALEA__MOD_BIT
_Static_assert(sizeof alea__mods_rows_of_kind / sizeof alea__mods_rows_of_kind[0] >= T__COUNT,
               "every token kind has its entry in rows_of_kind: add a line of 8");

/* Row `row`'s refusal and parse of t. The functions are named in a switch,
 * not a table of pointers: direct calls, and no pointers for the dynamic
 * loader to relocate at every start of the command line. */
static alea_status offer_row(parser *p, alea__mods *m, const token *t, int *taken,
                             unsigned row)
{
    alea_status st = ALEA_OK;
    switch (row) {
#define ALEA__MOD_OFFER(a, name, kinds, parse, check, refused)                             \
    case ALEA__MOD_ROW_##name: {                                                           \
        alea_status (*const refuse_fn)(parser *, const token *) = refused;                 \
        alea_status (*const parse_fn)(parser *, alea__mods *, const token *, int *) = parse; \
        if (refuse_fn && (st = refuse_fn(p, t)) != ALEA_OK)                                \
            return st;                                                                     \
        return parse_fn ? parse_fn(p, m, t, taken) : ALEA_OK;                              \
    }
        ALEA__POOL_MODS(ALEA__MOD_OFFER, 0)
#undef ALEA__MOD_OFFER
    }
    return st;
}

/* The number of the first row in rows (not 0). */
static unsigned first_row(unsigned rows)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(rows);
#else
    unsigned r = 0;
    while (!(rows >> r & 1u))
        r++;
    return r;
#endif
}

alea_status alea__mods_read(parser *p, alea__mods *m, int *any)
{
    alea_status st;
    int taken;
    *any = 0;
    do {
        const token *t = peek(p);
        taken = 0;
        for (unsigned rows = alea__mods_rows_of_kind[t->kind]; rows && !taken; rows &= rows - 1)
            if ((st = offer_row(p, m, t, &taken, first_row(rows))) != ALEA_OK)
                return st;
        *any |= taken;
    } while (taken);
    return ALEA_OK;
}

alea_status alea__mods_check(parser *p, const alea__mods *m)
{
    alea_status st = ALEA_OK;
#define ALEA__MOD_CHECK(a, name, kinds, parse, check, refused)                             \
    {                                                                                      \
        alea_status (*const check_fn)(parser *, const alea__mods *) = check;               \
        if (check_fn && (st = check_fn(p, m)) != ALEA_OK)                                  \
            return st;                                                                     \
    }
    ALEA__POOL_MODS(ALEA__MOD_CHECK, 0)
#undef ALEA__MOD_CHECK
    return st;
}
