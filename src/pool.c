/*
 * pool.c -- what a dice term means (pool.h): conditions on faces, a die's
 * faces, and the facts about a pool that the parser's checks, the roller
 * and the exact engine share, so that none of them asks another: which
 * faces a reroll or a clamp changes, which dice are kept, how a face
 * scores, whether a reroll or an explosion could ever end, and the pool at
 * one value of rolled sides.
 */
#include "pool.h"

/* ---- conditions ------------------------------------------------------------ */

int alea__cond_match(const cond *c, int64_t v)
{
    switch (c->op) {
    case CMP_EQ: return v == c->value;
    case CMP_NE: return v != c->value;
    case CMP_LT: return v < c->value;
    case CMP_LE: return v <= c->value;
    case CMP_GT: return v > c->value;
    case CMP_GE: return v >= c->value;
    case CMP_EVEN: return v % 2 == 0;
    case CMP_ODD: return v % 2 != 0;
    default: return 0;
    }
}

const char *alea__cond_op_str(uint8_t op)
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

int alea__judge_score(const alea__judge *j, int64_t v, int *score, uint8_t *flags,
                      uint8_t sflag, uint8_t fflag)
{
    int64_t x;
    if (alea__add_ovf(v, j->add, &x))
        return 0;
    *score = 0;
    if (j->success && alea__cond_match(j->success, x)) {
        ++*score;
        *flags |= sflag;
    }
    if (j->failure && alea__cond_match(j->failure, x)) {
        --*score;
        *flags |= fflag;
    }
    return 1;
}

/* Does cond c match every face in [a, b] (a <= b)? Conditions on a range
 * are intervals touching one end (or a point), so the ends decide. */
static int cond_all_in(const cond *c, int64_t a, int64_t b)
{
    if (c->op == CMP_EQ)
        return a == b && c->value == a;
    if (c->op == CMP_NE)
        return c->value < a || c->value > b;
    if (ALEA__COND_PARITY(c->op)) /* two neighbours differ */
        return a == b && alea__cond_match(c, a);
    return alea__cond_match(c, a) && alea__cond_match(c, b);
}

int alea__cond_all(const die_spec *d, const cond *c, const cond *except)
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

int alea__cond_any(const die_spec *d, const cond *c)
{
    if (d->kind == FACES_RANGE) {
        switch (c->op) {
        case CMP_EQ: return c->value >= d->lo && c->value <= d->hi;
        case CMP_LT: return d->lo < c->value;
        case CMP_LE: return d->lo <= c->value;
        case CMP_GT: return d->hi > c->value;
        case CMP_GE: return d->hi >= c->value;
        case CMP_NE: return !(d->lo == d->hi && d->hi == c->value);
        case CMP_EVEN:
        case CMP_ODD: return d->lo != d->hi || alea__cond_match(c, d->lo);
        default: return 1;
        }
    }
    for (uint32_t i = 0; i < d->nfaces; i++)
        if (alea__cond_match(c, d->sorted[i]))
            return 1;
    return 0;
}

int alea__cond_at_end(const die_spec *d, const cond *c)
{
    if (d->kind == FACES_RANGE) {
        if (c->op == CMP_EQ || c->op == CMP_NE)
            return c->value <= d->lo || c->value >= d->hi;
        if (ALEA__COND_PARITY(c->op)) /* alternate faces: two at most */
            return d->hi == d->lo || (d->hi > d->lo && d->hi - 1 == d->lo);
        return 1; /* "<", "<=", ">", ">=": an interval at one end */
    }
    /* Sorted faces: the matches are a prefix or a suffix (ties match alike). */
    uint32_t changes = 0;
    for (uint32_t i = 1; i < d->nfaces; i++)
        changes += alea__cond_match(c, d->sorted[i]) != alea__cond_match(c, d->sorted[i - 1]);
    return changes <= 1;
}

/* ---- a die's faces ---------------------------------------------------------- */

uint64_t alea__die_nfaces(const die_spec *d)
{
    if (d->kind == FACES_LIST)
        return d->nfaces;
    return (uint64_t)d->hi - (uint64_t)d->lo + 1u; /* hi >= lo */
}

int64_t alea__die_face(const die_spec *d, uint64_t i)
{
    if (d->kind == FACES_LIST)
        return d->sorted[i];
    return (int64_t)((uint64_t)d->lo + i);
}

uint64_t alea__die_distinct_faces(const die_spec *d, uint64_t cap)
{
    if (d->kind == FACES_RANGE) {
        uint64_t span = (uint64_t)d->hi - (uint64_t)d->lo; /* + 1, may wrap */
        return span >= cap ? cap : span + 1;
    }
    uint64_t k = 0;
    for (uint32_t i = 0; i < d->nfaces && k < cap; i++)
        k += i == 0 || d->sorted[i] != d->sorted[i - 1];
    return k;
}

/* ---- the pool ---------------------------------------------------------------- */

int alea__pool_rerolls(const pool *p, int64_t v)
{
    if (!p->has_reroll)
        return 0;
    if (alea__cond_match(&p->reroll, v))
        return 1;
    for (uint8_t i = 0; i < p->nreroll_also; i++)
        if (alea__cond_match(&p->reroll_also[i], v))
            return 1;
    return 0;
}

/* Whether face v of die d exists, is not rerolled by pl, and does not
 * match `also` (NULL: none). */
static int stays_at(const die_spec *d, const pool *pl, const cond *also, int64_t v)
{
    return v >= d->lo && v <= d->hi && !alea__pool_rerolls(pl, v) &&
           !(also && alea__cond_match(also, v));
}

/* Whether v - 1, v or v + 1 is a face that stays (stays_at). */
static int stays_near(const die_spec *d, const pool *pl, const cond *also, int64_t v)
{
    return (v > INT64_MIN && stays_at(d, pl, also, v - 1)) || stays_at(d, pl, also, v) ||
           (v < INT64_MAX && stays_at(d, pl, also, v + 1));
}

/* On a range the faces the conditions match are intervals that end at a
 * die's end or next to a condition's value, so a face that stays, if any,
 * is one of those. */
int alea__pool_face_stays(const die_spec *d, const pool *pl, const cond *also)
{
    if (d->kind == FACES_LIST) {
        for (uint32_t i = 0; i < d->nfaces; i++)
            if (stays_at(d, pl, also, d->sorted[i]))
                return 1;
        return 0;
    }
    if (stays_at(d, pl, also, d->lo) || stays_at(d, pl, also, d->hi) ||
        stays_near(d, pl, also, pl->reroll.value) ||
        (also && stays_near(d, pl, also, also->value)))
        return 1;
    for (uint8_t i = 0; i < pl->nreroll_also; i++)
        if (stays_near(d, pl, also, pl->reroll_also[i].value))
            return 1;
    return 0;
}

int64_t alea__pool_clamp(const pool *p, int64_t v)
{
    if (p->has_clamp_lo && v < p->clamp_lo)
        return p->clamp_lo;
    if (p->has_clamp_hi && v > p->clamp_hi)
        return p->clamp_hi;
    return v;
}

int alea__pool_marks(const pool *p, int fumble, int64_t v)
{
    if (!(fumble ? p->has_fumble : p->has_crit))
        return 0;
    if (alea__cond_match(fumble ? &p->fumble : &p->crit, v))
        return 1;
    const cond *also = fumble ? p->fumble_also : p->crit_also;
    for (uint8_t i = 0, n = fumble ? p->nfumble_also : p->ncrit_also; i < n; i++)
        if (alea__cond_match(&also[i], v))
            return 1;
    return 0;
}

alea__judge alea__pool_judge(const pool *p)
{
    alea__judge j = {p->has_success ? &p->success : NULL, p->has_failure ? &p->failure : NULL,
                     0};
    return j;
}

int alea__pool_score(const pool *p, int64_t v, uint8_t *flags, uint8_t sflag, uint8_t fflag)
{
    alea__judge j = alea__pool_judge(p);
    int sc = 0;
    (void)alea__judge_score(&j, v, &sc, flags, sflag, fflag); /* adds 0 */
    return sc;
}

void alea__pool_keep_range(const pool *p, int64_t n, int64_t *plo, int64_t *phi)
{
    int64_t extra = p->extra < 0 ? -p->extra : p->extra;
    int64_t total = n + extra, lo = 0, hi = total;
    if (p->extra > 0)
        lo = total - n;
    else if (p->extra < 0)
        hi = n;
    for (uint32_t i = 0; i < p->nkeeps; i++) {
        int64_t k = p->keeps[i].n, m = hi - lo;
        switch (p->keeps[i].op) {
        case KEEP_HIGH: if (k < m) lo = hi - k; break;
        case KEEP_LOW: if (k < m) hi = lo + k; break;
        case DROP_HIGH: hi = k < m ? hi - k : lo; break;
        case DROP_LOW: lo = k < m ? lo + k : hi; break;
        default: break;
        }
    }
    *plo = lo;
    *phi = hi;
}

/* ---- rolled sides ("1d(1d20)") ----------------------------------------------- */

alea_status alea__pool_at_sides(alea_ctx *ctx, const pool *p, size_t start, size_t end,
                                int64_t sides, int possible, pool *out)
{
    if (!p->sides_expr)
        return alea__broken(ctx, start, end, "rolled sides without their expression");
    if (sides < 0)
        return possible ? alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                                      "number of sides can be negative at byte %u (it can "
                                      "be %lld)",
                                      (unsigned)start, (long long)sides)
                        : alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                                      "negative number of sides %lld at byte %u",
                                      (long long)sides, (unsigned)start);
    *out = *p;
    out->sides_expr = NULL;
    out->die.lo = sides == 0 ? 0 : 1; /* d0 is the null die: one face, 0 */
    out->die.hi = sides;
    if (p->explode != EXPLODE_NONE && !p->trigger_written)
        out->trigger.value = sides;
    const char *what = possible ? "can be" : "rolled";
    const cond *gone = p->has_reroll && !p->reroll_once ? &p->reroll : NULL;
    if (gone && p->nreroll_also && !alea__pool_face_stays(&out->die, p, NULL))
        return alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                           "the reroll conditions match every face of a d%lld together, so "
                           "no roll could be kept: the sides at byte %u %s %lld",
                           (long long)sides, (unsigned)start, what, (long long)sides);
    if (gone && !p->nreroll_also && alea__cond_all(&out->die, gone, NULL))
        return alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                           "reroll condition %s%lld matches every face of a d%lld, so no "
                           "roll could be kept: the sides at byte %u %s %lld",
                           alea__cond_op_str(p->reroll.op), (long long)p->reroll.value,
                           (long long)sides, (unsigned)start, what, (long long)sides);
    if (p->explode != EXPLODE_NONE &&
        (gone && p->nreroll_also ? !alea__pool_face_stays(&out->die, p, &out->trigger)
                                 : alea__cond_all(&out->die, &out->trigger, gone)))
        return alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                           "explosion would never end: every roll of a d%lld explodes, and "
                           "the sides at byte %u %s %lld",
                           (long long)sides, (unsigned)start, what, (long long)sides);
    return ALEA_OK;
}
