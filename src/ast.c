/*
 * ast.c -- node helpers and the canonical printer. The printer's output
 * parses back to the same tree, so parses are testable as text.
 */
#include <string.h>

#include "ast.h"

#include "mech.h"

#include "out.h"

/* a ^ b in whole numbers, by squaring; every step checked. */
static int power(int64_t a, int64_t b, int64_t *r)
{
    if (b < 0 && a == 0)
        return ARITH_DIV0;
    if (b < 0 && a != 1 && a != -1)
        return ARITH_NEGPOW;
    if (a >= -1 && a <= 1) { /* 0, 1, -1: at once, whatever b's size */
        *r = b == 0 ? 1 : a == 0 ? 0 : a == 1 || b % 2 == 0 ? 1 : -1;
        return ARITH_OK;
    }
    int64_t acc = 1, base = a;
    for (;;) { /* |a| >= 2: base overflows after 6 squarings, so 7 rounds */
        if ((b & 1) && alea__mul_ovf(acc, base, &acc))
            return ARITH_OVERFLOW;
        b >>= 1;
        if (!b)
            break;
        if (alea__mul_ovf(base, base, &base))
            return ARITH_OVERFLOW;
    }
    *r = acc;
    return ARITH_OK;
}

int alea__arith(uint8_t op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case OP_ADD: return alea__add_ovf(a, b, r) ? ARITH_OVERFLOW : ARITH_OK;
    case OP_SUB: return alea__sub_ovf(a, b, r) ? ARITH_OVERFLOW : ARITH_OK;
    case OP_MUL: return alea__mul_ovf(a, b, r) ? ARITH_OVERFLOW : ARITH_OK;
    case OP_POW: return power(a, b, r);
    case OP_MOD:
        if (b == 0)
            return ARITH_DIV0;
        *r = b == -1 ? 0 : a % b; /* INT64_MIN % -1 is undefined in C */
        return ARITH_OK;
    default: break;
    }
    if (b == 0)
        return ARITH_DIV0;
    if (a == INT64_MIN && b == -1)
        return ARITH_OVERFLOW;
    int64_t q = a / b, rem = a % b;
    if (rem != 0 && op == OP_DIVWHOLE)
        return ARITH_INEXACT;
    if (rem != 0) {
        int neg = (a < 0) != (b < 0); /* the true quotient is negative */
        if (op == OP_DIV && neg)
            q--;
        else if (op == OP_DIVUP && !neg)
            q++;
        else if (op == OP_DIVNEAR || op == OP_DIVHALFUP) {
            uint64_t ur = rem < 0 ? 0u - (uint64_t)rem : (uint64_t)rem;
            uint64_t ub = b < 0 ? 0u - (uint64_t)b : (uint64_t)b;
            /* q is truncated towards zero: past a half it moves away from
             * zero; at a half too (OP_DIVNEAR), or only upwards, where q
             * is the lower neighbour (OP_DIVHALFUP) */
            int half = ur == ub - ur;
            if (ur > ub - ur || (half && (op == OP_DIVNEAR || !neg)))
                q += neg ? -1 : 1;
        }
    }
    *r = q;
    return ARITH_OK;
}

/* ---- printer ------------------------------------------------------------- */

/* A label on a term other than dice or a number follows the term, in
 * parentheses unless it is an atom: "(2d6 + 3) [fire]". */
static int wraps_label(const node *n)
{
    return n->label && n->kind != N_NUM && n->kind != N_DICE;
}

/* The function a division prints as ("trunc(a / b)"), or NULL when it
 * prints as an operator. */
static const char *op_function(uint8_t op)
{
    return op == OP_DIVTRUNC ? "trunc" : op == OP_DIVHALFUP ? "roundhalfup" : NULL;
}

/* The precedence of the term itself, without its label. */
static int body_prec(const node *n)
{
    /* "d20 +1d", "2d10 +2B" and "(2d6 + 3) +1d" bind like a sum. */
    if ((n->kind == N_DICE && n->u.pool->extra_kind) ||
        ((n->kind == N_BEST || n->kind == N_WORST) && n->op == ALEA__BEST_AS_BONUS))
        return PREC_SUM;
    switch (n->kind) {
    case N_CMP: return PREC_CMP;
    case N_SUM: return PREC_SUM;
    case N_PROD: /* "trunc(a / b)" is whole when it ends the chain */
        return op_function(n->u.chain.ops[n->u.chain.n - 1]) ? PREC_ATOM : PREC_PROD;
    case N_NEG: return PREC_NEG;
    case N_BIND: return PREC_BIND; /* its body reaches as far as it can */
    case N_OR: return PREC_OR;
    case N_AND: return PREC_AND;
    case N_NOT: return PREC_NOT;
    default: return PREC_ATOM;
    }
}

int alea__node_prec(const node *n)
{
    return wraps_label(n) ? PREC_ATOM : body_prec(n);
}

static void print_at(alea__out *o, const node *n, int min_prec)
{
    int paren = alea__node_prec(n) < min_prec;
    if (paren)
        alea__out_char(o, '(');
    alea__node_print(o, n);
    if (paren)
        alea__out_char(o, ')');
}

const char *alea__arith_str(uint8_t op)
{
    static const char *const op_str[] = {" + ", " - ", " * ", " / ", " /^ ", " /~ ", " / ",
                                         " / ", " / ", " % ", " ^ "};
    return op <= OP_POW ? op_str[op] : " ? ";
}

int alea__chain_min(const node *n, uint32_t i)
{
    if (n->kind == N_PROD && n->u.chain.ops[n->u.chain.n - 1] == OP_POW)
        return i == 0 ? PREC_ATOM : PREC_NEG;
    return n->kind == N_SUM ? PREC_SUM + 1 : PREC_PROD + 1;
}

void alea__chain_open(alea__out *o, const node *n)
{
    if (n->kind == N_PROD)
        for (uint32_t i = 1; i < n->u.chain.n; i++)
            if (op_function(n->u.chain.ops[i])) {
                alea__out_str(o, op_function(n->u.chain.ops[i]));
                alea__out_char(o, '(');
            }
}

void alea__chain_close(alea__out *o, const node *n, uint32_t i)
{
    if (n->kind == N_PROD && i > 0 && op_function(n->u.chain.ops[i]))
        alea__out_char(o, ')');
}

const char *alea__cmp_str(uint8_t op)
{
    switch (op) {
    case CMP_EQ: return "=";
    case CMP_NE: return "<>";
    case CMP_LT: return "<";
    case CMP_LE: return "<=";
    case CMP_GT: return ">";
    case CMP_GE: return ">=";
    case CMP_EVEN: return "even";
    case CMP_ODD: return "odd";
    default: return "?";
    }
}

/* Conditions after r, ro, f, !: '=' is implied. */
static void print_cond(alea__out *o, const cond *c)
{
    /* "!-1" would read back as "! - 1": spell '=' before a negative value. */
    if (c->op != CMP_EQ || c->value < 0)
        alea__out_str(o, alea__cmp_str(c->op));
    if (!ALEA__COND_PARITY(c->op))
        alea__out_i64(o, c->value);
}

/* "min3max5": the clamps, where the pool's clamp_all says (before or after
 * the explosion). */
static void print_clamps(alea__out *o, const pool *p)
{
    if (p->has_clamp_lo) {
        alea__out_str(o, "min");
        alea__out_i64(o, p->clamp_lo);
    }
    if (p->has_clamp_hi) {
        alea__out_str(o, "max");
        alea__out_i64(o, p->clamp_hi);
    }
}

/* The explosion: "!", "!!p>4", or, once only or capped, Foundry's "xo=6"
 * and "x5=10", which alea reads in every dialect. */
/* Whether a success count is printed right after the explosion (nothing
 * between them), so that a bare trigger would read back as more. */
static int success_follows(const pool *p)
{
    return p->has_success && !p->has_reroll_one && !p->nkeeps &&
           !(p->clamp_all && ALEA__CLAMPED(p));
}

static void print_explode(alea__out *o, const pool *p)
{
    if (p->has_first_trigger) { /* "xo<8x10" */
        alea__out_str(o, "xo");
        print_cond(o, &p->first_trigger);
        alea__out_char(o, 'x');
        /* "x10=8" would read back as at most 10 explosions on 8 */
        if (success_follows(p) && p->trigger.op == CMP_EQ && p->trigger.value >= 0)
            alea__out_str(o, alea__cmp_str(p->trigger.op));
        print_cond(o, &p->trigger);
        return;
    }
    if (p->explode_once || p->explode_cap) {
        alea__out_str(o, p->explode_once ? "xo" : "x");
        if (p->explode_cap)
            alea__out_i64(o, p->explode_cap);
        else if (p->sides_expr && !p->trigger_written)
            return; /* "2d(1d6)xo": on each die's own maximum */
        alea__out_str(o, alea__cmp_str(p->trigger.op));
        alea__out_i64(o, p->trigger.value);
        return;
    }
    alea__out_str(o, p->explode == EXPLODE_COMPOUND ? "!!" : "!");
    if (p->trigger.op == CMP_NE)
        o->foreign = ALEA__FOREIGN_NE;
    if (p->penetrate)
        alea__out_char(o, 'p');
    /* A success count right after a bare "!" would read back as its
     * trigger ("d6!<3"): then spell the default trigger out. */
    if (p->trigger_written || success_follows(p))
        print_cond(o, &p->trigger);
}

/* Unique, last of the modifiers: "u" with no condition would take a
 * success count after it as its own ("3d6>3u", "4d6kh3u=5"). */
static void print_unique(alea__out *o, const pool *p)
{
    if (!p->unique)
        return;
    alea__out_str(o, p->unique == UNIQUE_ONCE ? "uo" : "u");
    if (p->has_unique_cond) {
        alea__out_str(o, alea__cmp_str(p->unique_cond.op));
        alea__out_i64(o, p->unique_cond.value);
    }
}

/* The critical markers: "cs>=19cf<3" (display only). */
static void print_marks(alea__out *o, const pool *p)
{
    if (p->has_crit) {
        alea__out_str(o, "cs");
        print_cond(o, &p->crit);
        for (uint8_t i = 0; i < p->ncrit_also; i++) {
            alea__out_str(o, "cs");
            print_cond(o, &p->crit_also[i]);
        }
    }
    if (p->has_fumble) {
        alea__out_str(o, "cf");
        print_cond(o, &p->fumble);
        for (uint8_t i = 0; i < p->nfumble_also; i++) {
            alea__out_str(o, "cf");
            print_cond(o, &p->fumble_also[i]);
        }
    }
}

static void print_sides(alea__out *o, const die_spec *d)
{
    switch (d->style) {
    case DIE_NULL: alea__out_char(o, '0'); return;
    case DIE_PCT: alea__out_char(o, '%'); return;
    case DIE_FUDGE: alea__out_char(o, 'F'); return;
    case DIE_BRACE:
        alea__out_char(o, '{');
        alea__out_i64(o, d->lo);
        alea__out_str(o, "..");
        alea__out_i64(o, d->hi);
        alea__out_char(o, '}');
        return;
    default: break;
    }
    if (d->kind == FACES_LIST) {
        alea__out_char(o, '{');
        for (uint32_t i = 0; i < d->nfaces; i++) {
            if (i)
                alea__out_char(o, ',');
            alea__out_i64(o, d->faces[i]);
        }
        alea__out_char(o, '}');
        return;
    }
    alea__out_i64(o, d->hi);
}

/* " +1d", " +3B -1B", " -2 DICE", " +1 INJURY DICE": as written, netted
 * where the game nets them. */
static void print_signed(alea__out *o, int64_t k, const char *unit)
{
    alea__out_str(o, k < 0 ? " -" : " +");
    alea__out_i64(o, k < 0 ? -k : k);
    alea__out_str(o, unit);
}

static void print_extra(alea__out *o, const pool *p)
{
    const alea__extra *x = p->extra_kind;
    if (!x)
        return;
    if (!x->split) {
        int64_t net = p->extra_plus - p->extra_minus;
        if (net != 0 || !x->on_left) /* dice on the left: a net 0 is nothing */
            print_signed(o, net, x->unit);
        return;
    }
    /* Capped before netting: keep both sides. */
    if (p->extra_plus)
        print_signed(o, p->extra_plus, x->unit);
    if (p->extra_minus)
        print_signed(o, -p->extra_minus, x->unit);
    if (!p->extra_plus && !p->extra_minus)
        print_signed(o, 0, x->unit);
}

/* The selection steps ("k{1,2,3}", "p{h1,l1}") and the sorting ("sa"). */
static void print_selects(alea__out *o, const pool *p)
{
    for (uint32_t i = 0; i < p->nselects; i++) {
        const select_op *op = &p->selects[i];
        alea__out_str(o, op->drop ? "p{" : "k{");
        for (uint32_t j = 0; j < op->n; j++) {
            const select_item *it = &p->sel_items[op->first + j];
            if (j)
                alea__out_char(o, ',');
            if (it->kind == SEL_VALUE) {
                print_cond(o, &it->c);
            } else {
                alea__out_char(o, it->kind == SEL_HIGH ? 'h' : 'l');
                alea__out_i64(o, it->n);
            }
        }
        alea__out_char(o, '}');
    }
    if (p->sort)
        alea__out_str(o, p->sort == SORT_DESC ? "sd" : "sa");
}

void alea__pool_print(alea__out *o, const node *n, int with_count)
{
    alea__pool_print_as(o, n, with_count, NULL, NULL);
}

void alea__pool_print_as(alea__out *o, const node *n, int with_count, alea__sides_fn *sides,
                         const void *ud)
{
    static const char *const keep_str[] = {"kh", "kl", "dh", "dl"};
    const pool *p = n->u.pool;
    if (!with_count) {
        /* the caller printed the count */
    } else if (p->count_expr) {
        alea__out_char(o, '(');
        alea__node_print(o, p->count_expr);
        alea__out_char(o, ')');
    } else if (!p->count_implicit) {
        alea__out_i64(o, p->count);
    }
    alea__out_char(o, 'd');
    if (p->sides_expr) { /* "d(1d20)" */
        alea__out_char(o, '(');
        if (sides)
            sides(o, ud);
        else
            alea__node_print(o, p->sides_expr);
        alea__out_char(o, ')');
    } else {
        print_sides(o, &p->die);
    }
    if (p->has_reroll) {
        alea__out_str(o, p->reroll_once ? "ro" : "r");
        print_cond(o, &p->reroll);
        for (uint8_t i = 0; i < p->nreroll_also; i++) {
            alea__out_str(o, p->reroll_once ? "ro" : "r");
            print_cond(o, &p->reroll_also[i]);
        }
    }
    if (!p->clamp_all || p->explode == EXPLODE_NONE)
        print_clamps(o, p);
    if (p->explode != EXPLODE_NONE)
        print_explode(o, p);
    if (p->clamp_all && p->explode != EXPLODE_NONE)
        print_clamps(o, p);
    if (p->has_reroll_one) {
        alea__out_str(o, "ra");
        print_cond(o, &p->reroll_one);
    }
    if (p->keep_rolls && p->nkeeps)
        o->foreign = "each roll of an explosion kept or dropped as a die of its own";
    for (uint32_t i = 0; i < p->nkeeps; i++) {
        alea__out_str(o, keep_str[p->keeps[i].op]);
        alea__out_i64(o, p->keeps[i].n);
    }
    print_selects(o, p);
    if (p->has_success && p->success.op == CMP_NE)
        o->foreign = ALEA__FOREIGN_NE;
    if (p->has_success) {
        alea__out_str(o, alea__cmp_str(p->success.op));
        if (!ALEA__COND_PARITY(p->success.op))
            alea__out_i64(o, p->success.value);
        if (p->has_failure) {
            alea__out_char(o, 'f');
            print_cond(o, &p->failure);
        }
    }
    print_marks(o, p);
    print_unique(o, p);
    if (n->label) { /* before extra dice, which a label after would join */
        alea__out_str(o, " [");
        alea__out_text(o, n->label, n->label_len);
        alea__out_char(o, ']');
    }
    print_extra(o, p);
}

/* Whether the printed node ends in extra dice (" +1d", " -1B", " +1 DICE"),
 * which more extra dice written after it would join. */
static int ends_with_extra(const node *n)
{
    if (n->kind == N_BEST || n->kind == N_WORST)
        return n->op == ALEA__BEST_AS_BONUS;
    if (n->kind != N_DICE)
        return 0;
    const pool *p = n->u.pool;
    if (p->extra_kind && p->extra_kind->on_left && !p->extra_kind->split)
        return p->extra_plus != p->extra_minus; /* a net of 0 prints nothing */
    return p->extra_kind != NULL;
}

static void print_call(alea__out *o, const char *name, const node *a, const node *b)
{
    alea__out_str(o, name);
    alea__out_char(o, '(');
    alea__node_print(o, a);
    if (b) {
        alea__out_str(o, ", ");
        alea__node_print(o, b);
    }
    alea__out_char(o, ')');
}

static void print_body(alea__out *o, const node *n);

/* What a comparison's operand needs to print bare: a number or a name
 * (no dice that the comparison would count successes of), else an atom. */
static int cmp_operand_prec(const node *a)
{
    return a->kind == N_NUM || a->kind == N_NAME ? PREC_SUM : PREC_ATOM + 1;
}

/* A new node of kind over [start, end), its other fields zero. */
static node *ast_node(alea__arena *a, uint8_t kind, uint32_t start, uint32_t end)
{
    node *n = alea__arena_alloc(a, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->kind = kind;
        n->start = start;
        n->end = end;
    }
    return n;
}

node *alea__ast_name(alea__arena *a, uint32_t slot, const char *name, uint32_t len,
                     uint32_t start, uint32_t end)
{
    node *n = ast_node(a, N_NAME, start, end);
    if (n) {
        n->u.name.text = name;
        n->u.name.len = len;
        n->u.name.slot = slot;
    }
    return n;
}

node *alea__ast_bind(alea__arena *a, const node *name, const node *value, const node *body,
                     uint32_t start)
{
    node *n = ast_node(a, N_BIND, start, body->end);
    if (n) {
        n->u.bind.name = name;
        n->u.bind.value = value;
        n->u.bind.body = body;
    }
    return n;
}

void alea__label_open(alea__out *o, const node *n)
{
    if (wraps_label(n) && body_prec(n) < PREC_ATOM)
        alea__out_char(o, '(');
}

void alea__label_close(alea__out *o, const node *n)
{
    if (!wraps_label(n))
        return;
    if (body_prec(n) < PREC_ATOM)
        alea__out_char(o, ')');
    alea__out_str(o, " [");
    alea__out_text(o, n->label, n->label_len);
    alea__out_char(o, ']');
}

void alea__expr_print(alea__out *o, const struct alea_expr *e)
{
    alea__node_print(o, e->root);
    if (e->comment) {
        alea__out_str(o, " # ");
        alea__out_mem(o, e->comment, e->comment_len);
    }
}

void alea__node_print(alea__out *o, const node *n)
{
    alea__label_open(o, n);
    print_body(o, n);
    alea__label_close(o, n);
}

static void print_body(alea__out *o, const node *n)
{
    switch (n->kind) {
    case N_NUM:
        alea__out_i64(o, n->u.num);
        if (n->label) {
            alea__out_str(o, " [");
            alea__out_text(o, n->label, n->label_len);
            alea__out_char(o, ']');
        }
        break;
    case N_DICE:
        alea__pool_print(o, n, 1);
        break;
    case N_NEG:
        alea__out_char(o, '-');
        print_at(o, n->u.un.a, PREC_NEG);
        break;
    case N_SUM:
    case N_PROD: {
        alea__chain_open(o, n);
        for (uint32_t i = 0; i < n->u.chain.n; i++) {
            if (i && n->u.chain.ops[i] == OP_DIVWHOLE)
                o->foreign = "'/' a division of real numbers";
            if (i)
                alea__out_str(o, alea__arith_str(n->u.chain.ops[i]));
            print_at(o, n->u.chain.items[i], alea__chain_min(n, i));
            alea__chain_close(o, n, i);
        }
        break;
    }
    case N_CMP:
        /* Operands other than numbers go in parentheses: "1d20 >= 15" would
         * read back as success counting. */
        print_at(o, n->u.bin.a, cmp_operand_prec(n->u.bin.a));
        alea__out_char(o, ' ');
        alea__out_str(o, alea__cmp_str(n->op));
        alea__out_char(o, ' ');
        print_at(o, n->u.bin.b, cmp_operand_prec(n->u.bin.b));
        break;
    case N_MIN: print_call(o, "min", n->u.bin.a, n->u.bin.b); break;
    case N_MAX: print_call(o, "max", n->u.bin.a, n->u.bin.b); break;
    case N_ABS: print_call(o, "abs", n->u.un.a, NULL); break;
    case N_BEST:
    case N_WORST:
        if (n->op == ALEA__BEST_AS_BONUS) {
            /* "(d20 +1d) -1d" is worst of two (d20 +1d): without the
             * parentheses the two signs would net out (found by fuzzing). */
            print_at(o, n->u.rep.a, ends_with_extra(n->u.rep.a) ? PREC_ATOM + 1 : PREC_SUM);
            print_signed(o, n->kind == N_BEST ? n->u.rep.n - 1 : 1 - n->u.rep.n, "d");
            break;
        }
        alea__out_str(o, n->kind == N_BEST ? "best(" : "worst(");
        alea__out_i64(o, n->u.rep.n);
        alea__out_str(o, ", ");
        alea__node_print(o, n->u.rep.a);
        alea__out_char(o, ')');
        break;
    case N_MECH:
        n->u.mech.ops->print(o, n);
        break;
    case N_NAME:
        alea__out_text(o, n->u.name.text, n->u.name.len);
        break;
    case N_BIND:
        alea__out_str(o, "let ");
        alea__node_print(o, n->u.bind.name);
        alea__out_str(o, " = ");
        alea__node_print(o, n->u.bind.value);
        alea__out_str(o, " in ");
        alea__node_print(o, n->u.bind.body);
        break;
    case N_AND:
    case N_OR: /* left to right: "a or b or c" is "(a or b) or c" */
        print_at(o, n->u.bin.a, alea__node_prec(n));
        alea__out_str(o, n->kind == N_AND ? " and " : " or ");
        print_at(o, n->u.bin.b, alea__node_prec(n) + 1);
        break;
    case N_NOT:
        alea__out_str(o, "not ");
        print_at(o, n->u.bin.a, PREC_NOT);
        break;
    case N_REPEAT:
        alea__out_str(o, "repeat(");
        alea__node_print(o, n->u.rep.a);
        alea__out_str(o, ", ");
        alea__out_i64(o, n->u.rep.n);
        alea__out_char(o, ')');
        break;
    default:
        alea__out_str(o, "?");
        break;
    }
}
