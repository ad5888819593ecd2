/*
 * show.c -- the breakdown of a roll, as one line of text or as JSON.
 *
 * Text: each dice term is followed by its dice in the order rolled,
 *   4d6kh3 [6, 5, 3, 1 dropped] = 14
 * with these marks on a die (docs/language.md, "Reading a breakdown"):
 *   6!+4       6 exploded, then a 4 was added
 *   1->5       1 was rerolled, the 5 stands
 *   1=>3       a clamp ("min3") made the 1 count as 3
 *   6!+(4-1)   penetrating: each extra roll counts one less
 *   9*  1x     a success, a failure (success counting)
 *   3 dropped  not kept
 * Operands whose value is not plain to see get "= value"; repetitions of
 * best/worst that were not kept are marked "dropped".
 */
#include "out.h"
#include "pool.h"
#include "roll.h"
#include "mech.h"

static void show_rec(alea__out *o, const alea_roll *r, const rec *rc);

/* An ANSI colour escape ("\x1b[32m"), in ALEA_FORMAT_ANSI only. */
static void sgr(alea__out *o, const char *code)
{
    if (o->ansi) {
        alea__out_str(o, "\x1b[");
        alea__out_str(o, code);
        alea__out_char(o, 'm');
    }
}

/* Markdown markup ("~~", "**", "`"), in ALEA_FORMAT_MARKDOWN only. */
static void md(alea__out *o, const char *mark)
{
    if (o->md)
        alea__out_raw(o, mark);
}

/* What a face is worth marking: a critical (the die's highest face, on a
 * die that can show more than 2), a fumble (a 1 on such a die), or none.
 * A pool's critical markers ("cs>=19", "cf<3") replace either rule. */
enum { MARK_NONE, MARK_CRITICAL, MARK_FUMBLE };
static int face_mark(const rface *f, const die_spec *spec, const pool *pl)
{
    if (pl && (pl->has_crit || pl->has_fumble)) {
        int crit = pl->has_crit ? alea__pool_marks(pl, 0, f->face)
                                : face_mark(f, spec, NULL) == MARK_CRITICAL;
        int fumble = pl->has_fumble ? alea__pool_marks(pl, 1, f->face)
                                    : face_mark(f, spec, NULL) == MARK_FUMBLE;
        return crit ? MARK_CRITICAL : fumble ? MARK_FUMBLE : MARK_NONE;
    }
    if (!spec || (uint64_t)spec->hi - (uint64_t)spec->lo < 2) /* hi >= lo */
        return MARK_NONE;
    return f->face == spec->hi ? MARK_CRITICAL
           : f->face == 1 && spec->lo == 1 ? MARK_FUMBLE : MARK_NONE;
}

/* The colour of a face: green for a critical, an explosion or a success,
 * red for a fumble or a failure, none otherwise. */
static const char *face_colour(const rface *f, const die_spec *spec, const pool *pl)
{
    if (f->flags & (FACE_EXPLODED | FACE_SUCCESS))
        return "32";
    if (f->flags & FACE_FAILURE)
        return "31";
    int m = face_mark(f, spec, pl);
    return m == MARK_CRITICAL ? "32" : m == MARK_FUMBLE ? "31" : NULL;
}

static void show_face(alea__out *o, const rface *f, int chained, const die_spec *spec,
                      const pool *pl)
{
    const char *colour = (o->ansi || o->md) && !(f->flags & (FACE_REROLLED | FACE_CLAMPED))
                             ? face_colour(f, spec, pl) : NULL;
    if (colour) { /* a critical: green or red, or bold */
        sgr(o, colour);
        md(o, "**");
    }
    if (chained && f->face < 0 && !(f->flags & FACE_PENETRATED)) {
        alea__out_char(o, '('); /* "1!+(-1)", not "1!+-1" */
        alea__out_i64(o, f->face);
        alea__out_char(o, ')');
    } else if (f->flags & FACE_PENETRATED) {
        alea__out_char(o, '(');
        alea__out_i64(o, f->face);
        alea__out_str(o, "-1)");
    } else {
        alea__out_i64(o, f->face);
    }
    if (f->flags & FACE_EXPLODED)
        alea__out_char(o, '!');
    if (f->flags & FACE_SUCCESS)
        alea__out_char(o, '*');
    if (f->flags & FACE_FAILURE)
        alea__out_char(o, 'x');
    if (colour) {
        sgr(o, "39");
        md(o, "**");
    }
}

/* One die; spec is its die's faces (NULL when they vary, as in a pool of
 * several kinds of dice); pl its pool, for its critical markers, or NULL. */
static void show_die(alea__out *o, const alea_roll *r, const rdie *d, const die_spec *spec,
                     const pool *pl)
{
    int dim = (d->flags & (DIE_DROPPED | DIE_CANCELLED | DIE_DISCARDED)) != 0;
    if (dim) { /* dimmed, or struck through */
        sgr(o, "2");
        md(o, "~~");
    }
    for (uint32_t k = 0; k < d->nfaces; k++) {
        const rface *f = &r->faces[d->first + k];
        if (k > 0)
            alea__out_str(o, (f[-1].flags & FACE_REROLLED)  ? "->"
                             : (f[-1].flags & FACE_CLAMPED) ? "=>"
                                                            : "+");
        show_face(o, f, k > 0 && !(f[-1].flags & FACE_CLAMPED), spec, pl);
    }
    if (d->flags & DIE_SUCCESS)
        alea__out_char(o, '*');
    if (d->flags & DIE_FAILURE)
        alea__out_char(o, 'x');
    if ((d->flags & DIE_DROPPED) && !o->md) /* struck through says it */
        alea__out_str(o, " dropped");
    if (d->flags & DIE_CANCELLED)
        alea__out_str(o, " cancelled");
    if (d->flags & DIE_DISCARDED)
        alea__out_str(o, " discarded");
    if (dim) {
        sgr(o, "22");
        md(o, "~~");
    }
}

void alea__show_die(alea__out *o, const alea_roll *r, const rdie *d, const die_spec *spec)
{
    show_die(o, r, d, spec, NULL);
}

/* The die a pool's record rolled: its rolled sides' die, or its own. */
static const die_spec *rolled_die(const rec *rc)
{
    return rc->rolled ? &rc->rolled->die : &rc->n->u.pool->die;
}

/* Rolled sides in a breakdown: "1d(1d20 [13])". */
typedef struct sides_ud {
    const alea_roll *r;
    const rec *rc;
} sides_ud;

static void show_sides(alea__out *o, const void *ud)
{
    const sides_ud *s = ud;
    show_rec(o, s->r, s->rc->sides);
}

static void show_dice(alea__out *o, const alea_roll *r, const rec *rc)
{
    sides_ud ud = {r, rc};
    alea__sides_fn *sides = rc->sides ? show_sides : NULL;
    /* The label goes into the dice's brackets, "3d6 [fire: 5, 4, 4]": a
     * label and a list of dice never look alike. */
    node bare = *rc->n;
    bare.label = NULL;
    if (rc->count) {
        alea__out_char(o, '(');
        show_rec(o, r, rc->count);
        alea__out_char(o, ')');
        alea__pool_print_as(o, &bare, 0, sides, &ud);
    } else {
        alea__pool_print_as(o, &bare, 1, sides, &ud);
    }
    alea__out_str(o, " [");
    if (rc->n->label) {
        alea__out_text(o, rc->n->label, rc->n->label_len);
        alea__out_str(o, ": ");
    }
    for (uint32_t i = 0; i < rc->ndice; i++) {
        if (i)
            alea__out_str(o, ", ");
        show_die(o, r, &r->dice[rc->die0 + i], rolled_die(rc), rc->n->u.pool);
    }
    alea__out_char(o, ']');
}

/* Whether a record's value is plain to see in its text. */
static int plain(const alea_roll *r, const rec *rc)
{
    if (rc->n->kind == N_NUM || (rc->n->kind == N_NEG && rc->n->u.un.a->kind == N_NUM))
        return 1;
    if (rc->n->kind == N_DICE && rc->ndice == 1 && !rc->n->u.pool->has_success) {
        const rdie *d = &r->dice[rc->die0];
        return d->nfaces == 1 && !(d->flags & DIE_DROPPED);
    }
    return 0;
}

/* An operand with its value when that is not plain; parenthesised when
 * `paren` and the value is shown. */
static void show_valued(alea__out *o, const alea_roll *r, const rec *rc, int paren)
{
    /* a name by itself: its value shows where it is bound */
    if (rc->n->kind == N_NAME || (plain(r, rc) && !(paren && rc->n->kind != N_NUM))) {
        show_rec(o, r, rc);
        return;
    }
    if (paren)
        alea__out_char(o, '(');
    show_rec(o, r, rc);
    alea__out_str(o, " = ");
    alea__out_i64(o, rc->value);
    if (paren)
        alea__out_char(o, ')');
}

static void show_operand(alea__out *o, const alea_roll *r, const rec *rc, int min_prec)
{
    /* Bonus dice show as best(...) / worst(...): already bracketed. */
    int shown_as_call = rc->n->kind == N_BEST || rc->n->kind == N_WORST;
    int paren = !shown_as_call && alea__node_prec(rc->n) < min_prec;
    if (paren)
        alea__out_char(o, '(');
    show_rec(o, r, rc);
    if (paren)
        alea__out_char(o, ')');
}

static void show_body(alea__out *o, const alea_roll *r, const rec *rc);

/* A rolled term: its breakdown, inside its label when it has one that
 * wraps it ("(2d6 [5, 4] + 3) [fire]"). */
static void show_rec(alea__out *o, const alea_roll *r, const rec *rc)
{
    alea__label_open(o, rc->n);
    show_body(o, r, rc);
    alea__label_close(o, rc->n);
}

void alea__show_member(alea__out *o, const alea_roll *r, const rec *rc, int valued)
{
    if (valued)
        show_valued(o, r, rc, 0);
    else
        show_rec(o, r, rc);
}

static void show_body(alea__out *o, const alea_roll *r, const rec *rc)
{
    const node *n = rc->n;
    switch (n->kind) {
    case N_NUM:
        alea__node_print(o, n); /* the number, and its label */
        break;
    case N_DICE:
        show_dice(o, r, rc);
        break;
    case N_MECH:
        if (!rc->n->u.mech.ops->members) /* a term: its text, its label around */
            rc->n->u.mech.ops->print(o, rc->n);
        rc->n->u.mech.ops->show(o, r, rc);
        break;
    case N_NEG:
        alea__out_char(o, '-');
        show_operand(o, r, rc->kids[0], PREC_NEG);
        break;
    case N_SUM:
    case N_PROD: {
        alea__chain_open(o, n);
        for (uint32_t i = 0; i < rc->nkids; i++) {
            if (i)
                alea__out_str(o, alea__arith_str(n->u.chain.ops[i]));
            show_operand(o, r, rc->kids[i], alea__chain_min(n, i));
            alea__chain_close(o, n, i);
        }
        break;
    }
    case N_CMP:
        show_valued(o, r, rc->kids[0], 1);
        alea__out_char(o, ' ');
        alea__out_str(o, alea__cmp_str(n->op));
        alea__out_char(o, ' ');
        show_valued(o, r, rc->kids[1], 1);
        break;
    case N_MIN:
    case N_MAX:
    case N_ABS:
    case N_BEST:
    case N_WORST: {
        static const char *const names[] = {"min(", "max(", "abs(", "best(", "worst("};
        int rep = n->kind == N_BEST || n->kind == N_WORST;
        alea__out_str(o, names[n->kind - N_MIN]);
        if (rep && rc->nkids > ALEA__REP_SHOWN) {
            /* many repetitions: the kept one, then the others' totals */
            show_valued(o, r, rc->kids[rc->kept], 0);
            alea__out_str(o, "; dropped ");
            for (uint32_t i = 0, first = 1; i < rc->nkids; i++) {
                if (i == rc->kept)
                    continue;
                if (!first)
                    alea__out_str(o, ", ");
                alea__out_i64(o, rc->kids[i]->value);
                first = 0;
            }
            alea__out_char(o, ')');
            break;
        }
        for (uint32_t i = 0; i < rc->nkids; i++) {
            if (i)
                alea__out_str(o, ", ");
            show_valued(o, r, rc->kids[i], 0);
            if (rep && i != rc->kept)
                alea__out_str(o, " dropped");
        }
        alea__out_char(o, ')');
        break;
    }
    case N_AND:
    case N_OR: /* "d20 [12] >= 10 = 1 and d6 [2] > 3 = 0" */
        show_valued(o, r, rc->kids[0], 1);
        alea__out_str(o, n->kind == N_AND ? " and " : " or ");
        show_valued(o, r, rc->kids[1], 1);
        break;
    case N_NOT:
        alea__out_str(o, "not ");
        show_valued(o, r, rc->kids[0], 1);
        break;
    case N_NAME: /* a use: by its name; the value shows where it is bound */
        alea__out_text(o, n->u.name.text, n->u.name.len);
        break;
    case N_BIND: /* "let a = d20 [17] in a + 5": the bound dice once */
        alea__out_str(o, "let ");
        alea__node_print(o, n->u.bind.name);
        alea__out_str(o, " = ");
        show_valued(o, r, rc->kids[0], 0);
        alea__out_str(o, " in ");
        show_rec(o, r, rc->kids[1]);
        break;
    default:
        alea__out_char(o, '?');
        break;
    }
}

/* ---- JSON ------------------------------------------------------------------ */

void alea__show_json_flag(alea__out *o, const char *name, int on)
{
    if (on) {
        alea__out_str(o, ", \"");
        alea__out_str(o, name);
        alea__out_str(o, "\": true");
    }
}

void alea__show_json_at(alea__out *o, const char *before, const node *n, int64_t value)
{
    alea__out_str(o, before);
    alea__out_str(o, "{\"start\": ");
    alea__out_i64(o, n->start);
    alea__out_str(o, ", \"end\": ");
    alea__out_i64(o, n->end);
    alea__out_str(o, ", \"value\": ");
    alea__out_i64(o, value);
}

static void json_dice(alea__out *o, const alea_roll *r, const rec *rc, int discarded,
                      int *first)
{
    if (!rc)
        return;
    int kind = rc->n->kind;
    if (kind == N_DICE || (kind == N_MECH && !rc->n->u.mech.ops->members)) { /* a term */
        if (kind == N_DICE) {
            json_dice(o, r, rc->count, discarded, first);
            json_dice(o, r, rc->sides, discarded, first);
        }
        if (!*first)
            alea__out_str(o, ", ");
        *first = 0;
        alea__out_str(o, "{\"term\": \"");
        o->json = 1; /* a label's quotes */
        alea__node_print(o, rc->n);
        o->json = 0;
        alea__out_str(o, "\", \"start\": ");
        alea__out_i64(o, rc->n->start);
        alea__out_str(o, ", \"end\": ");
        alea__out_i64(o, rc->n->end);
        alea__out_str(o, ", \"value\": ");
        alea__out_i64(o, rc->value);
        const die_spec *spec = kind == N_DICE ? rolled_die(rc) : NULL;
        const pool *pl = kind == N_DICE ? rc->n->u.pool : NULL;
        if (spec) { /* the die, so that a bot need not read the term */
            alea__out_str(o, ", \"sides\": ");
            alea__out_i64(o, (int64_t)alea__die_nfaces(spec));
            alea__out_str(o, ", \"min\": ");
            alea__out_i64(o, spec->lo);
            alea__out_str(o, ", \"max\": ");
            alea__out_i64(o, spec->hi);
        }
        if (rc->n->label) {
            alea__out_str(o, ", \"label\": ");
            alea__out_json_str(o, rc->n->label, rc->n->label_len);
        }
        alea__show_json_flag(o, "discarded", discarded);
        if (kind == N_MECH && rc->n->u.mech.ops->show_json)
            rc->n->u.mech.ops->show_json(o, rc);
        alea__out_str(o, ", \"dice\": [");
        for (uint32_t i = 0; i < rc->ndice; i++) {
            const rdie *d = &r->dice[rc->die0 + i];
            alea__out_str(o, i ? ", {\"value\": " : "{\"value\": ");
            alea__out_i64(o, d->value);
            alea__show_json_flag(o, "dropped", (d->flags & DIE_DROPPED) != 0);
            alea__show_json_flag(o, "success", (d->flags & DIE_SUCCESS) != 0);
            alea__show_json_flag(o, "failure", (d->flags & DIE_FAILURE) != 0);
            alea__show_json_flag(o, "cancelled", (d->flags & DIE_CANCELLED) != 0);
            alea__show_json_flag(o, "discarded", (d->flags & DIE_DISCARDED) != 0);
            alea__out_str(o, ", \"rolls\": [");
            for (uint32_t k = 0; k < d->nfaces; k++) {
                const rface *f = &r->faces[d->first + k];
                alea__out_str(o, k ? ", {\"face\": " : "{\"face\": ");
                alea__out_i64(o, f->face);
                alea__show_json_flag(o, "rerolled", (f->flags & FACE_REROLLED) != 0);
                alea__show_json_flag(o, "clamped", (f->flags & FACE_CLAMPED) != 0);
                alea__show_json_flag(o, "exploded", (f->flags & FACE_EXPLODED) != 0);
                alea__show_json_flag(o, "penetrated", (f->flags & FACE_PENETRATED) != 0);
                alea__show_json_flag(o, "success", (f->flags & FACE_SUCCESS) != 0);
                alea__show_json_flag(o, "failure", (f->flags & FACE_FAILURE) != 0);
                int mark = f->flags & FACE_CLAMPED
                               ? MARK_NONE
                               : face_mark(f, spec, pl); /* as the colours and Markdown */
                alea__show_json_flag(o, "critical", mark == MARK_CRITICAL);
                alea__show_json_flag(o, "fumble", mark == MARK_FUMBLE);
                alea__out_char(o, '}');
            }
            alea__out_str(o, "]}");
        }
        alea__out_str(o, "]}");
        return;
    }
    int rep = rc->n->kind == N_BEST || rc->n->kind == N_WORST;
    for (uint32_t i = 0; i < rc->nkids; i++) /* a dropped member's dice: discarded */
        if (!rep || rc->nkids <= ALEA__REP_SHOWN || i == rc->kept) /* see show_rec */
            json_dice(o, r, rc->kids[i],
                      discarded || (rep && i != rc->kept) ||
                          (rc->marks && (rc->marks[i] & DIE_DROPPED)),
                      first);
}

/* Every labelled term, as the text shows it: {"label", "start", "end",
 * "value"}; the dropped repetitions of a long best()/worst() are left out,
 * as json_dice leaves them. */
static void json_labels(alea__out *o, const rec *rc, int *first)
{
    if (!rc)
        return;
    if (rc->n->label) {
        alea__out_str(o, *first ? "{\"label\": " : ", {\"label\": ");
        *first = 0;
        alea__out_json_str(o, rc->n->label, rc->n->label_len);
        alea__out_str(o, ", \"start\": ");
        alea__out_i64(o, rc->n->start);
        alea__out_str(o, ", \"end\": ");
        alea__out_i64(o, rc->n->end);
        alea__out_str(o, ", \"value\": ");
        alea__out_i64(o, rc->value);
        alea__out_char(o, '}');
    }
    if (rc->n->kind == N_DICE) {
        json_labels(o, rc->count, first);
        json_labels(o, rc->sides, first);
        return;
    }
    int rep = rc->n->kind == N_BEST || rc->n->kind == N_WORST;
    for (uint32_t i = 0; i < rc->nkids; i++)
        if (!rep || rc->nkids <= ALEA__REP_SHOWN || i == rc->kept)
            json_labels(o, rc->kids[i], first);
}

/* "bound": each binding as it was rolled, in the order they were (a
 * value's own bindings before it): {"name", "term", "value"}. A binding
 * inside repetitions has an entry per repetition, but for the dropped ones
 * of a long best()/worst(), left out as json_dice leaves them. */
static void json_bound(alea__out *o, const rec *rc, int *first)
{
    if (!rc)
        return;
    if (rc->n->kind == N_DICE) {
        json_bound(o, rc->count, first);
        json_bound(o, rc->sides, first);
        return;
    }
    int rep = rc->n->kind == N_BEST || rc->n->kind == N_WORST;
    for (uint32_t i = 0; i < rc->nkids; i++) {
        if (rep && rc->nkids > ALEA__REP_SHOWN && i != rc->kept)
            continue;
        json_bound(o, rc->kids[i], first);
        if (rc->n->kind != N_BIND || i != 0 || !rc->kids[0])
            continue;
        const node *x = rc->n->u.bind.name;
        alea__out_str(o, *first ? "{\"name\": " : ", {\"name\": ");
        *first = 0;
        alea__out_json_str(o, x->u.name.text, x->u.name.len);
        alea__out_str(o, ", \"term\": \"");
        o->json = 1;
        alea__node_print(o, rc->n->u.bind.value);
        o->json = 0;
        alea__out_str(o, "\", \"value\": ");
        alea__out_i64(o, rc->kids[0]->value);
        alea__out_char(o, '}');
    }
}

/* "groups": each construct of members (mech.h; "{4d6 + 3, 2d8}kh1"), each
 * member's total and marks, as the construct writes them. */
static void json_groups(alea__out *o, const rec *rc, int *first)
{
    if (!rc)
        return;
    if (rc->n->kind == N_DICE) {
        json_groups(o, rc->count, first);
        json_groups(o, rc->sides, first);
        return;
    }
    int rep = rc->n->kind == N_BEST || rc->n->kind == N_WORST;
    if (rc->n->kind == N_MECH && rc->n->u.mech.ops->show_json_members)
        rc->n->u.mech.ops->show_json_members(o, rc, first);
    for (uint32_t i = 0; i < rc->nkids; i++)
        if (!rep || rc->nkids <= ALEA__REP_SHOWN || i == rc->kept)
            json_groups(o, rc->kids[i], first);
}

/* A roll's line: its breakdown, " = ", its total (bold, or in code). */
static void show_line(alea__out *o, const alea_roll *r, const rec *rc)
{
    show_rec(o, r, rc);
    alea__out_str(o, " = ");
    sgr(o, "1");
    md(o, "`"); /* a number in code: nothing in it to escape */
    alea__out_i64(o, rc->value);
    md(o, "`");
    sgr(o, "22");
}

/* The rolls a line each: the rolls of a repeat ("6 x 4d6kh3"), else the
 * root alone; sep between them ("\n", escaped in JSON). */
static void show_lines(alea__out *o, const alea_roll *r, const char *sep)
{
    const rec *rc = r->root;
    if (rc->n->kind != N_REPEAT) {
        show_line(o, r, rc);
        return;
    }
    for (uint32_t i = 0; i < rc->nkids; i++) {
        if (i)
            alea__out_str(o, sep);
        show_line(o, r, rc->kids[i]);
    }
}

/* A repeat's JSON: ", \"repeat\": [{\"total\", \"text\", \"dice\"}, ...]". */
static void json_repeat(alea__out *o, const alea_roll *r)
{
    const rec *rc = r->root;
    if (rc->n->kind != N_REPEAT)
        return;
    alea__out_str(o, ", \"repeat\": [");
    for (uint32_t i = 0; i < rc->nkids; i++) {
        int first = 1;
        alea__out_str(o, i ? ", {\"total\": " : "{\"total\": ");
        alea__out_i64(o, rc->kids[i]->value);
        alea__out_str(o, ", \"text\": \"");
        o->json = 1;
        show_line(o, r, rc->kids[i]);
        o->json = 0;
        alea__out_str(o, "\", \"dice\": [");
        json_dice(o, r, rc->kids[i], 0, &first);
        alea__out_str(o, "]}");
    }
    alea__out_char(o, ']');
}

size_t alea__show(const alea_roll *r, alea_format fmt, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (fmt == ALEA_FORMAT_CSV) /* a format of distributions */
        return alea__out_finish(&o);
    if (!r->root) {
        /* No successful roll: an empty line, or an empty JSON object. */
        if (fmt == ALEA_FORMAT_JSON)
            alea__out_str(&o, "{}");
        return alea__out_finish(&o);
    }
    if (fmt == ALEA_FORMAT_JSON) {
        int first = 1;
        alea__out_str(&o, "{\"expression\": ");
        alea__out_json_str(&o, r->expr->src, r->expr->len);
        alea__out_str(&o, ", \"total\": ");
        alea__out_i64(&o, r->total);
        /* The text holds canonical notation, numbers and labels, whose
         * quotes and backslashes are escaped (o.json). */
        alea__out_str(&o, ", \"text\": \"");
        o.json = 1;
        show_lines(&o, r, "\\n");
        o.json = 0;
        alea__out_str(&o, "\", ");
        if (r->expr->comment) {
            alea__out_str(&o, "\"comment\": ");
            alea__out_json_str(&o, r->expr->comment, r->expr->comment_len);
            alea__out_str(&o, ", ");
        }
        alea__out_str(&o, "\"dice\": [");
        json_dice(&o, r, r->root, 0, &first);
        alea__out_char(&o, ']');
        json_repeat(&o, r);
        first = 1;
        json_groups(&o, r->root, &first);
        if (!first)
            alea__out_char(&o, ']');
        if (r->expr->nslots) {
            alea__out_str(&o, ", \"bound\": [");
            first = 1;
            json_bound(&o, r->root, &first);
            alea__out_char(&o, ']');
        }
        if (r->expr->has_labels) {
            alea__out_str(&o, ", \"labels\": [");
            first = 1;
            json_labels(&o, r->root, &first);
            alea__out_char(&o, ']');
        }
        alea__out_char(&o, '}');
        return alea__out_finish(&o);
    }
    o.ansi = fmt == ALEA_FORMAT_ANSI;
    o.md = fmt == ALEA_FORMAT_MARKDOWN;
    show_lines(&o, r, "\n");
    if (r->expr->comment) { /* "= 12 # fire damage" */
        alea__out_str(&o, " # ");
        alea__out_mem(&o, r->expr->comment, r->expr->comment_len);
    }
    return alea__out_finish(&o);
}
