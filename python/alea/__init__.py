"""alea: tabletop dice, rolled with every die shown or computed exactly.

The C library (libalea.so.0) through ctypes; nothing from PyPI.

    >>> import alea
    >>> alea.roll("4d6kh3", seed=7).text
    '4d6kh3 [5, 2 dropped, 6, 6] = 17'
    >>> alea.roll("4d6kh3", seed=7).dice[0].dice[1]
    Die(value=2, rolls=(Face(face=2),), dropped=True)
    >>> d = alea.dist("2d6")
    >>> d.p(7), d.mean, d.median
    (0.16666666666666666, 7.0, 7)
    >>> alea.compare("1d20+5", ("advantage", "2d20kh1+2"))["advantage"].median
    17

A `Context` holds limits, a deadline and a generator; the module-level
functions use one context per thread. A bad expression or a limit reached
raises `AleaError`, which has the message, the status and the byte span of
the expression it concerns; an argument of the wrong type raises TypeError,
one out of its range ValueError, each naming the argument and the range. No
number is ever passed to the library wrapped to fit its C type.

The library is the one named by the ALEA_LIBRARY environment variable (a
path) when it is set; else the one pip built into the package
(alea/libalea.so.0, with the exact-fractions module in alea/alea/); else
libalea.so.0 where the dynamic loader looks (an installed alea).
"""

import bisect
import ctypes
import ctypes.util
import json
import math
import numbers
import operator
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field
from fractions import Fraction
from typing import Optional

__all__ = ['AleaError', 'Bound', 'Comparison', 'Context', 'Die', 'Dist', 'Face', 'Group',
           'Luck', 'Member', 'Roll', 'Term', 'compare', 'dist', 'roll', 'version', 'COMPARE_CELLS_MAX', 'LIMITS',
           'LIMIT_MAX', 'Fairness', 'FairnessTest', 'fairness']


def _load():
    """The C library: ALEA_LIBRARY when set (a path); else the one built
    into the package (alea/libalea.so.0, by pip install); else libalea.so.0
    where the dynamic loader looks (an installed alea)."""
    path = os.environ.get('ALEA_LIBRARY')
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'libalea.so.0')
    if path:
        names = [path]
    else:
        names = [bundled] if os.path.exists(bundled) else []
        names += ['libalea.so.0', ctypes.util.find_library('alea')]
    errors = []
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise ImportError('alea: the C library libalea.so.0 was not found (install the package '
                      "with pip, which builds it; install alea with 'cmake --install'; or set "
                      'ALEA_LIBRARY to its path): ' + '; '.join(errors))


_lib = _load()
_p = ctypes.c_void_p
_INTERRUPT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


def _sig(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_version = _sig('alea_version', ctypes.c_char_p)
_status_name = _sig('alea_status_name', ctypes.c_char_p, ctypes.c_int)
_status_text = _sig('alea_status_text', ctypes.c_char_p, ctypes.c_int)
_ctx_new = _sig('alea_ctx_new', _p, _p, _p)
_ctx_free = _sig('alea_ctx_free', None, _p)
_ctx_error = _sig('alea_ctx_error', ctypes.c_char_p, _p)
_ctx_error_line = _sig('alea_ctx_error_line', ctypes.c_size_t, _p, ctypes.c_char_p,
                       ctypes.c_size_t)
_ctx_error_span = _sig('alea_ctx_error_span', ctypes.c_int, _p,
                       ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t))
_ctx_limit = _sig('alea_ctx_limit', ctypes.c_int64, _p, ctypes.c_int, ctypes.c_int64)
_limit_name = _sig('alea_limit_name', ctypes.c_char_p, ctypes.c_int)
_limit_max = _sig('alea_limit_max', ctypes.c_int64, ctypes.c_int)
_ctx_set_dialect = _sig('alea_ctx_set_dialect', ctypes.c_int, _p, ctypes.c_int)
_dialect_name = _sig('alea_dialect_name', ctypes.c_char_p, ctypes.c_int)
_expr_hint = _sig('alea_expr_hint', ctypes.c_char_p, _p)
_ctx_set_tail = _sig('alea_ctx_set_tail', ctypes.c_int, _p, ctypes.c_double)
_ctx_set_interrupt = _sig('alea_ctx_set_interrupt', None, _p, _INTERRUPT, _p)
_ctx_seed = _sig('alea_ctx_seed', None, _p, ctypes.c_uint64)
_ctx_seed_os = _sig('alea_ctx_seed_os', ctypes.c_int, _p)
_ctx_set_exact = _sig('alea_ctx_set_exact', ctypes.c_int, _p, ctypes.c_int)
_expr_compile = _sig('alea_expr_compile', ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t,
                     ctypes.POINTER(_p))
_expr_free = _sig('alea_expr_free', None, _p)
_roll_new = _sig('alea_roll_new', _p, _p)
_roll_free = _sig('alea_roll_free', None, _p)
_expr_roll = _sig('alea_expr_roll', ctypes.c_int, _p, _p, _p)
_roll_total = _sig('alea_roll_total', ctypes.c_int64, _p)
_roll_format = _sig('alea_roll_format', ctypes.c_size_t, _p, ctypes.c_int, ctypes.c_char_p,
                    ctypes.c_size_t)
_expr_dist = _sig('alea_expr_dist', ctypes.c_int, _p, _p, ctypes.POINTER(_p))
_dist_free = _sig('alea_dist_free', None, _p)
_dist_median = _sig('alea_dist_median', ctypes.c_int64, _p)
_dist_count = _sig('alea_dist_count', ctypes.c_size_t, _p)
_dist_cumulate = _sig('alea_dist_cumulate', None, _p, ctypes.POINTER(ctypes.c_double),
                      ctypes.POINTER(ctypes.c_double))
_ctx_work = _sig('alea_ctx_work', ctypes.c_int64, _p)
_ctx_random = _sig('alea_ctx_random', ctypes.c_uint64, _p)
_dist_luck = _sig('alea_dist_luck', None, _p, ctypes.c_int64, ctypes.POINTER(ctypes.c_double),
                  ctypes.POINTER(ctypes.c_double))
_dist_format = _sig('alea_dist_format', ctypes.c_size_t, _p, ctypes.c_int, ctypes.c_char_p,
                    ctypes.c_size_t)
_svg_dists = _sig('alea_svg_dists', ctypes.c_size_t, ctypes.POINTER(_p),
                  ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_char_p,
                  ctypes.c_size_t)


class _Versus(ctypes.Structure):
    """alea_versus: the distances between two distributions."""
    _fields_ = [(k, ctypes.c_double) for k in
                ('p_greater', 'p_equal', 'p_less', 'tv', 'ks', 'emd')]


class _FairnessTest(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('expression', ctypes.c_char_p),
                ('statistic', ctypes.c_double), ('p', ctypes.c_double),
                ('p_adjusted', ctypes.c_double), ('rolls', ctypes.c_int64),
                ('direction', ctypes.c_int), ('df', ctypes.c_int),
                ('outcomes', ctypes.c_size_t), ('pooled', ctypes.c_char * 96)]


class _FairnessResult(ctypes.Structure):
    _fields_ = [('rolls', ctypes.c_int64), ('refused', ctypes.c_int64),
                ('ntests', ctypes.c_size_t), ('tests', ctypes.POINTER(_FairnessTest)),
                ('verdict', ctypes.c_int), ('direction', ctypes.c_int),
                ('p', ctypes.c_double), ('text', ctypes.c_char_p)]


_fairness_new = _sig('alea_fairness_new', _p, _p, ctypes.c_uint64)
_fairness_free = _sig('alea_fairness_free', None, _p)
_fairness_add_rolls = _sig('alea_fairness_add_rolls', ctypes.c_int, _p, ctypes.c_char_p,
                           ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t)
_fairness_judge = _sig('alea_fairness_judge', ctypes.c_int, _p,
                       ctypes.POINTER(_FairnessResult))
_FAIRNESS_VERDICTS = ('fair', 'not fair', 'too few')
_FAIRNESS_ALPHA = 0.01  # ALEA_FAIRNESS_ALPHA
_dist_versus = _sig('alea_dist_versus', ctypes.c_int, _p, _p, _p, ctypes.POINTER(_Versus))
_dist_versus_fractions = _sig('alea_dist_versus_fractions', ctypes.c_int, _p, _p, _p,
                              ctypes.c_char_p, ctypes.c_size_t,
                              ctypes.POINTER(ctypes.c_size_t))

_table_new = _sig('alea_table_new', ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_size_t,
                  ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                  ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.POINTER(_p))
_table_free = _sig('alea_table_free', None, _p)
_ctx_exact = _sig('alea_ctx_exact', ctypes.c_int, _p)
_table_error_part = _sig('alea_table_error_part', ctypes.c_int, _p,
                         ctypes.POINTER(ctypes.c_size_t))
_table_format = _sig('alea_table_format', ctypes.c_size_t, _p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_size_t)

_policy_new = _sig('alea_policy_new', ctypes.c_int, _p, _p, ctypes.POINTER(_p))
_policy_free = _sig('alea_policy_free', None, _p)
_policy_format = _sig('alea_policy_format', ctypes.c_size_t, _p, ctypes.c_int, ctypes.c_char_p,
                      ctypes.c_size_t)

_FORMAT_TEXT, _FORMAT_JSON, _FORMAT_MARKDOWN = 0, 1, 4

#: The limits a Context takes, by name: the library's, in its order (a limit
#: added to the library needs no change here).
LIMITS = []
for _i in range(64):
    _n = _limit_name(_i)
    if _n is None:
        break
    LIMITS.append(_n.decode())
#: Each limit's compiled maximum: a larger setting is lowered to it, as the
#: C library and the command line do.
LIMIT_MAX = {name: _limit_max(i) for i, name in enumerate(LIMITS)}

_U64_MAX = 2**64 - 1
_I64_MAX = 2**63 - 1
_TAIL_MIN, _TAIL_MAX = 1e-300, 1e-3
_TAIL_RANGE = 'a number from 1e-300 to 1e-3'


def _show(value):
    """value for a message: an int of thousands of digits is not printed
    (Python refuses to, and no reader wants it)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f'{"a negative" if value < 0 else "an"} integer of {value.bit_length()} bits'
    return repr(value)


def _integer(value, what, lo, hi, more=''):
    """value as an int in [lo, hi]; else TypeError (not an integer: a float,
    a bool, a str...) or ValueError, naming `what` and the range."""
    span = f'of {lo} or more' if hi is None else f'from {lo} to {hi}'
    want = f'{what} must be an integer {span}{more}'
    if isinstance(value, bool) or not hasattr(type(value), '__index__'):
        hint = ''
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e30:
            hint = f' (write {int(value)}, not {value!r})'
        raise TypeError(f'alea: {want}, not {type(value).__name__}{hint}')
    v = operator.index(value)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f'alea: {want}, not {_show(v)}')
    return v


def _real(value, what, accepted):
    """value as a float (a number, not a bool); TypeError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'alea: {what} must be {accepted}, not {type(value).__name__}')
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f'alea: {what} must be {accepted}, not {_show(value)}') from None


def _limit_index(name):
    if not isinstance(name, str):
        raise TypeError(f'alea: a limit is named by a str (one of {", ".join(LIMITS)}), '
                        f'not {type(name).__name__}')
    if name not in LIMITS:
        raise ValueError(f'alea: unknown limit {name!r} (one of {", ".join(LIMITS)})')
    return LIMITS.index(name)


def _limit_value(name, value):
    """A limit's setting: an int from 0; above the limit's maximum, the
    maximum (never a number wrapped to 64 bits)."""
    top = LIMIT_MAX[name]
    v = _integer(value, f'limit {name!r}', 0, None,
                 f' (above its maximum, {top}, it is lowered to that)')
    return min(v, top)


def _seed_value(seed):
    return _integer(seed, 'seed', 0, _U64_MAX, ' (2**64 - 1)')


def version():
    """The version of the C library loaded, e.g. '0.1.0'."""
    return _version().decode()


class AleaError(Exception):
    """A bad expression or a limit reached. `status` is the library's name
    for it ('ALEA_ERR_SYNTAX', 'ALEA_ERR_LIMIT', ...), `start` and `end` the
    byte span of the expression it concerns, `expression` the text, and
    `line` the whole error as one line for a person, as the command line
    prints it after 'alea: ' ('syntax error: unknown name ...')."""

    def __init__(self, message, status, start, end, expression, line=None):
        super().__init__(message)
        self.message = message
        self.line = line or message
        self.status = status
        self.start = start
        self.end = end
        self.expression = expression

    def caret(self):
        """The expression and a caret line under the problem, as the command
        line prints them: one column per character, a control character or
        one that is not text (a lone surrogate) as '?', and an expression
        longer than 76 characters as a window of 70 around the problem, so
        the excerpt stays short whatever the expression's length."""
        src = self.expression
        units = len(src)
        # Characters before the span's start, and before its end; past the
        # window the end is not needed, so a huge text is not walked.
        if src.isascii():
            cs, ce = min(self.start, units), min(self.end, units)
        else:
            cs = ce = off = 0
            for ch in src:
                if off >= self.start and (off >= self.end or ce - cs > _WINDOW):
                    break
                cs += off < self.start
                ce += off < self.end
                off += _utf8_len(ch)
        ce = max(ce, cs + 1)
        ws, we = 0, units
        if units > _EXCERPT_MAX:
            ws = max(cs - _WINDOW_BEFORE, 0)
            we = min(ws + _WINDOW, units)
            if we - ws < _WINDOW:
                ws = units - _WINDOW
        line = ('...' if ws > 0 else '') + ''.join(map(_column, src[ws:we])) + \
            ('...' if we < units else '')
        col = (3 if ws > 0 else 0) + cs - ws
        last = min(ce, we) if we < units else ce
        return f'{line}\n{" " * col}{"^" * max(last - cs, 1)}'


# An error excerpt longer than this many characters is a window of _WINDOW
# around the problem (the command line's rule).
_EXCERPT_MAX, _WINDOW, _WINDOW_BEFORE = 76, 70, 20


def _utf8_len(ch):
    o = ord(ch)
    return 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4


def _column(ch):
    if ch in '\t\n\r\v\f':
        return ' '
    if ch < ' ' or ch == '\x7f' or '\ud800' <= ch <= '\udfff':
        return '?'
    return ch


class _Fields:
    """A typed object of the JSON breakdown, still read as its dict was
    (term['dice'], die.get('dropped')): fields are named as the JSON's keys,
    and a key the library adds later, which no field holds yet, is in
    `extra`."""

    def __getitem__(self, key):
        if isinstance(key, str) and key in self.__dataclass_fields__ and key != 'extra':
            return getattr(self, key)
        return self.extra[key]

    def __repr__(self):
        # the fields that say something: a flag only when set, an optional
        # field only when present
        shown = []
        for name, f in self.__dataclass_fields__.items():
            value = getattr(self, name)
            if name != 'extra' and (f.default is MISSING or value != f.default):
                shown.append(f'{name}={value!r}')
        return f'{type(self).__name__}({", ".join(shown)})'

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    @classmethod
    def _from_json(cls, data, **made):
        fields = cls.__dataclass_fields__
        known = {k: v for k, v in data.items() if k in fields and k != 'extra'}
        known.update(made)
        extra = {k: v for k, v in data.items() if k not in fields or k == 'extra'}
        return cls(**known, extra=extra)


@dataclass(frozen=True, repr=False)
class Face(_Fields):
    """One face rolled for a die (an entry of the JSON's "rolls"): `face` as
    rolled, and the flags: rerolled (replaced), clamped, exploded (it made
    another roll), penetrated (counts one less), success, failure, critical
    (the die's highest face), fumble (a 1)."""
    face: int
    rerolled: bool = False
    clamped: bool = False
    exploded: bool = False
    penetrated: bool = False
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False
    extra: dict = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class Die(_Fields):
    """One die of a term: `value` (its chain's total), `rolls` (each Face
    rolled, in order: one, or more for explosions and rerolls) and the flags
    dropped, success, failure, cancelled, discarded."""
    value: int
    rolls: tuple = ()
    dropped: bool = False
    success: bool = False
    failure: bool = False
    cancelled: bool = False
    discarded: bool = False
    extra: dict = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class Term(_Fields):
    """One dice term rolled: `term` (its canonical text), `start`, `end`
    (its byte span of the expression), `value` (a sum, or a number of
    successes), `dice` (each Die), and, when they apply, `sides`, `min`,
    `max` (the die: its number of faces, lowest and highest), `label` (a
    dd() outcome's name), `discarded` (a best()/worst() repetition not
    kept), `critical_failure` (event()), `doubled_down` (dd())."""
    term: str
    start: int
    end: int
    value: int
    dice: tuple = ()
    sides: Optional[int] = None
    min: Optional[int] = None
    max: Optional[int] = None
    label: Optional[str] = None
    discarded: bool = False
    critical_failure: bool = False
    doubled_down: bool = False
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _parse(cls, data):
        dice = tuple(Die._from_json(d, rolls=tuple(map(Face._from_json, d.get('rolls', ()))))
                     for d in data.get('dice', ()))
        return cls._from_json(data, dice=dice)


@dataclass(frozen=True, repr=False)
class Member(_Fields):
    """A member of a group of several expressions ('{4d6 + 3, 2d8}kh1'):
    `expression` (the member as written), `start`, `end` (its span),
    `value` (its total), and the flags dropped, success, failure."""
    expression: str
    start: int
    end: int
    value: int
    dropped: bool = False
    success: bool = False
    failure: bool = False
    extra: dict = field(default_factory=dict, repr=False, compare=False)


class Group(list):
    """A group rolled (an entry of the JSON's "groups"): a list of its
    members, each a Member, with `start`, `end` (its span), `value` (its
    total), `branch` ('then' or 'else' for an if(COND, THEN, ELSE), else
    None: its members are the condition and the branch taken) and `count`
    (N for a sum(N, EXPR), else None: its members are the N rolls of EXPR)."""
    def __init__(self, members, start, end, value, branch=None, count=None):
        super().__init__(members)
        self.start, self.end, self.value = start, end, value
        self.branch, self.count = branch, count

    def __repr__(self):
        more = ''.join(f', {k}={getattr(self, k)!r}' for k in ('branch', 'count')
                       if getattr(self, k) is not None)
        return f'Group({list.__repr__(self)}{more})'


@dataclass(frozen=True)
class Bound:
    """A name given by `let NAME = EXPR in BODY` (an entry of the JSON's
    "bound"): the `name`, its `term` (EXPR as written) and the `value` it
    was rolled once to, for every use of the name."""
    name: str
    term: str
    value: int


@dataclass(frozen=True)
class Luck:
    """A rolled total's place in its expression's exact distribution
    (alea_dist_luck): `at_most` = P(X <= total), `at_least` = P(X >= total);
    as `alea roll --luck --json` gives them."""
    at_most: float
    at_least: float


@dataclass(frozen=True)
class Roll:
    """One roll: its `total`, the breakdown line (`text`, and `markdown` for
    a chat: dropped dice struck through, criticals bold, the total in code,
    other markup escaped), `dice` (each Term rolled, in evaluation order,
    with its Die objects and their Face objects), `comment` (the
    expression's description, '4d6 # fire damage', or None), `hint` (what
    the expression likely meant, when another tool reads it otherwise
    (alea_expr_hint), or None), and `detail`: the whole JSON breakdown,
    parsed (docs/language.md, "JSON"). Rolled with luck=True, `luck` is the
    total's Luck (a list of them, one per roll, for a repeat: '6 x 4d6kh3'),
    as detail's "luck" is; None when not asked, or when the distribution
    was refused (a limit): then `luck_refused` says why."""
    expression: str
    total: int
    text: str
    dice: tuple
    comment: Optional[str] = None
    hint: Optional[str] = None
    markdown: str = ''
    detail: dict = field(default_factory=dict, repr=False, compare=False)
    luck: object = field(default=None, repr=False, compare=False)
    luck_refused: Optional[str] = field(default=None, repr=False, compare=False)

    @classmethod
    def _parse(cls, detail, text, hint, markdown):
        return cls(detail['expression'], detail['total'], text,
                   tuple(Term._parse(t) for t in detail['dice']), detail.get('comment'),
                   hint, markdown, detail)

    @property
    def labels(self):
        """Each labelled term's (label, value), in the order written:
        '(2d6 + 3) [fire] + 1d4 [cold]' -> [('fire', 12), ('cold', 3)]."""
        return [(x['label'], x['value']) for x in self.detail.get('labels', [])]

    @property
    def totals(self):
        """Each roll's total: a repeat's ('6 x 4d6kh3' -> six totals, a line of
        `text` each, whose sum is `total`), else [total]."""
        rolls = self.detail.get('repeat')
        return [x['total'] for x in rolls] if rolls is not None else [self.total]

    @property
    def groups(self):
        """Each group of several expressions rolled, in the order rolled: a
        Group, the list of its members, each a Member: '{4d6 + 3, 2d8}kh1' ->
        [[Member(expression='4d6 + 3', value=17, dropped=False, ...),
        Member(expression='2d8', ...)]]. An if(COND, THEN, ELSE) is a group
        whose `branch` is 'then' or 'else', a sum(N, EXPR) one whose `count`
        is N."""
        src = self.detail['expression'].encode()
        return [Group([Member._from_json(m, expression=src[m['start']:m['end']].decode(
                           errors='replace')) for m in g['members']],
                      g['start'], g['end'], g['value'], g.get('branch'), g.get('count'))
                for g in self.detail.get('groups', [])]

    @property
    def bound(self):
        """Each name given by let, in the order bound, as a Bound(name, term,
        value): 'let a = d20, b = a + 2 in b' -> [Bound(name='a', term='d20',
        value=14), Bound(name='b', term='a + 2', value=16)]; [] without let."""
        return [Bound(x['name'], x['term'], x['value']) for x in self.detail.get('bound', [])]

    def __repr__(self):
        return f'Roll({self.text!r})'


class Dist:
    """An exact distribution: `outcomes` maps each value to its probability
    (ascending); mean, sd, variance, min, max, and the mass cut from explosion
    tails (`truncated`). From a Context with exact=True (`exact` is then
    True), the probabilities, the mean, the variance and `truncated` are
    fractions.Fraction in lowest terms, and at_least/at_most add them
    exactly; else floats. `median` is the smallest value v with
    P(X <= v) >= 1/2 (of the outcomes' mass), as `alea dist` prints it.
    `labels` names values (dd() outcomes), `flags` holds named probabilities
    (an event() pool's 'critical failure'), `hint` what the expression likely
    meant (as Roll's), or None. A Dist is made by dist(), or from the JSON
    of `alea dist --json` (Dist(json.loads(text))), whose median is then
    found here by the library's rule. A Dist made by dist() in doubles
    answers at_least and at_most from the library's cumulative columns
    (alea_dist_cumulate: exactly 1 at their far end), never from sums here."""

    def __init__(self, data, hint=None, median=None, columns=None):
        self.hint = hint
        # the library's (at least, at most) columns, one number per outcome
        self._columns = columns
        self.expression = data['expression']
        self.exact = bool(data.get('exact', False))
        num = Fraction if self.exact else float
        self.outcomes = {v: num(p) for v, p in data['outcomes']}
        self.mean = num(data['mean'])
        self.sd = data['sd']
        self.variance = num(data['variance']) if 'variance' in data else self.sd ** 2
        self.min = data['min']
        self.max = data['max']
        self.truncated = num(data['truncated'])
        self.labels = {v: name for v, name in data.get('labels', [])}
        self.flags = data.get('flags', {})
        # a repeat ('6 x 4d6kh3'): how many rolls, each of this distribution
        self.rolls = data.get('rolls', 1)
        # why outcomes rarer than the double range may be missing, or None
        self.incomplete = data.get('incomplete')
        # which of min and max are only the listed ends, which the
        # expression can pass: () or some of 'min', 'max' (alea_dist_open)
        self.open = tuple(data.get('open', ()))
        self.median = median if median is not None else self._median()

    def _median(self):
        # alea_dist_median's rule, with its allowance for rounding in doubles
        mass = sum(self.outcomes.values())
        half = mass / 2 if self.exact else 0.5 * mass * (1 - 1e-12)
        s = 0
        for v, p in self.outcomes.items():
            s += p
            if s >= half:
                return v
        return self.max

    def p(self, value):
        """P(X = value)."""
        return self.outcomes.get(_point(value), Fraction(0) if self.exact else 0.0)

    def at_least(self, value):
        """P(X >= value)."""
        value = _point(value)
        if self._columns:
            i = bisect.bisect_left(self._values(), value)
            return self._columns[0][i] if i < len(self.outcomes) else 0.0
        return sum((p for v, p in self.outcomes.items() if v >= value),
                   Fraction(0) if self.exact else 0)

    def at_most(self, value):
        """P(X <= value)."""
        value = _point(value)
        if self._columns:
            i = bisect.bisect_right(self._values(), value)
            return self._columns[1][i - 1] if i > 0 else 0.0
        return sum((p for v, p in self.outcomes.items() if v <= value),
                   Fraction(0) if self.exact else 0)

    def _values(self):
        if not hasattr(self, '_sorted'):
            self._sorted = list(self.outcomes)
        return self._sorted

    def __repr__(self):
        return f'Dist({self.expression!r}, {len(self.outcomes)} outcomes, mean {float(self.mean):.4g})'


#: The most cells (values x columns) a comparison's table may have: a
#: million Python numbers and their row lists (41 MB at the peak of a
#: cumulative table, python/README.md). Bounds what
#: compare() holds when the columns' values hardly overlap (the support
#: limit bounds the values, not their product with the columns).
COMPARE_CELLS_MAX = 1_000_000


class Comparison(Mapping):
    """Several distributions side by side (compare()): a mapping from each
    column's name to its Dist, in the order given. `outcomes` is every value
    some column can take, ascending; table() the rows of numbers, format()
    (and str()) the text table `alea compare` prints."""

    KINDS = ('p', 'at_least', 'at_most')

    def __init__(self, names, dists, versus=()):
        self.names = tuple(names)
        self.dists = tuple(dists)
        #: Each column against the first (every pair with pairs=True), as
        #: `alea compare --json` gives them: dicts of a and b (the columns'
        #: indexes), p_greater, p_equal, p_less (A and B rolled
        #: independently), tv, ks and emd (total variation, Kolmogorov-
        #: Smirnov and earth mover's distances); Fractions when both are exact.
        self.versus = tuple(versus)
        self._by_name = dict(zip(self.names, self.dists))
        self.outcomes = sorted(set().union(*(d.outcomes for d in self.dists)))

    def __getitem__(self, name):
        return self._by_name[name]

    def __iter__(self):
        return iter(self.names)

    def __len__(self):
        return len(self.names)

    def table(self, kind='p'):
        """The rows [(value, [one number per column])], for every value of
        `outcomes`. kind 'p': P(X = value), None where the column cannot
        take it; 'at_least', 'at_most': P(X >= value), P(X <= value), every
        cell filled (at least 23 on 2d20kh1+2 is 0). Each column is summed
        once from its small end (linear in the rows)."""
        if kind not in self.KINDS:
            raise ValueError(f'alea: kind must be one of {", ".join(self.KINDS)}, not {kind!r}')
        cols = [self._column(d, kind) for d in self.dists]
        return [(v, [c[i] for c in cols]) for i, v in enumerate(self.outcomes)]

    def _column(self, d, kind):
        zero = Fraction(0) if d.exact else 0.0
        if kind == 'p':
            return [d.outcomes.get(v) for v in self.outcomes]
        if d._columns:  # the library's, at each value of the table
            at = d.at_least if kind == 'at_least' else d.at_most
            return [at(v) for v in self.outcomes]
        values = self.outcomes if kind == 'at_most' else self.outcomes[::-1]
        out, s = [], zero
        for v in values:
            s += d.outcomes.get(v, zero)
            out.append(s)
        return out if kind == 'at_most' else out[::-1]

    def format(self, kind='p'):
        """The text table: a row per value, a column per name, chances in
        percent ('' where impossible), then mean, sd, min, max and median."""
        head = {'p': '% chance of each value', 'at_least': '% chance of at least each value',
                'at_most': '% chance of at most each value'}[kind]
        names = {}  # the outcomes' names (dd()), from any column that has them
        for d in self.dists:
            names.update(d.labels)
        rows = [[names.get(v, str(v))] + ['' if p is None else _percent(p) for p in ps]
                for v, ps in self.table(kind)]
        for stat in ('mean', 'sd', 'min', 'max', 'median'):
            cells = [getattr(d, stat) for d in self.dists]
            rows.append([stat] + [f'{float(x):.2f}' if stat in ('mean', 'sd') else str(x)
                                  for x in cells])
        header = ['value', *self.names]
        # each column as wide as 100.00, as the command line's
        widths = [max(6, *(len(r[i]) for r in rows + [header])) for i in range(len(header))]
        lines = [head] + ['  '.join(c.rjust(w) for c, w in zip(r, widths)).rstrip()
                          for r in [header] + rows]
        return '\n'.join(lines + self._versus_lines())

    def _versus_lines(self):
        """The block under the table, as `alea compare` prints it."""
        if not self.versus:
            return []
        labels = [f'{self.names[v["a"]]} vs {self.names[v["b"]]}' for v in self.versus]
        lw = max(6, *(len(x) for x in labels))
        emdw = max(3, *(len(f'{float(v["emd"]):.2f}') for v in self.versus))
        one_line = lw + 43 + emdw <= 80
        pad = lw if one_line else 0
        lines = ['', f'{"A vs B" if one_line else "":<{pad}}  {"A > B":>7}  {"A = B":>7}  '
                     f'{"A < B":>7}  {"TV":>5}  {"KS":>5}  {"EMD":>{emdw}}']
        for label, v in zip(labels, self.versus):
            x = {k: float(v[k]) for k in ('p_greater', 'p_equal', 'p_less', 'tv', 'ks', 'emd')}
            numbers = (f'  {100 * x["p_greater"]:6.2f}%  {100 * x["p_equal"]:6.2f}%  '
                       f'{100 * x["p_less"]:6.2f}%  {x["tv"]:5.3f}  {x["ks"]:5.3f}  '
                       f'{x["emd"]:{emdw}.2f}')
            lines += [label.ljust(lw) + numbers] if one_line else [label, numbers]
            if isinstance(v['tv'], Fraction):
                lines.append(' ' * pad + 'exact' + ''.join(
                    f'  {n} {v[k]}' for n, k in (('A > B', 'p_greater'), ('A = B', 'p_equal'),
                                                 ('A < B', 'p_less'), ('TV', 'tv'),
                                                 ('KS', 'ks'), ('EMD', 'emd'))))
        return lines

    def __str__(self):
        return self.format()

    def __repr__(self):
        return f'Comparison({", ".join(self.names)})'


class Table:
    """A table of `alea table` (Context.table): `names` the names swept
    (one or two), `values` each name's values, `rows` the first's (a row
    each) and `cols` the second's (a column each; [None] with one name),
    `stats` the statistics, `exact` whether the cells are fractions.
    `cell(stat, row, col)` is a cell by the statistic (its text or index)
    and the row's and column's values; `as_dicts()` a dict per row and
    column ({'m': 0, 'dc': 10, 'mean': 0.55}); `data` the library's JSON,
    as `alea table --json` prints it. A cell is a float, a Fraction in
    exact mode, an int for median and pN."""

    def __init__(self, data, exact=False):
        self.data = data
        self.expression = data['expression']
        self.names = list(data['names'])
        self.values = [list(v) for v in data['values']]
        self.rows = self.values[0]
        self.cols = self.values[1] if len(self.values) > 1 else [None]
        self.stats = [s['stat'] for s in data['stats']]
        self.exact = exact
        self._cells = [[_cell(r if len(self.values) > 1 else [r]) for r in s['cells']]
                       for s in data['stats']]

    def cell(self, stat, row, col=None):
        """The cell of stat ('mean' or its index) at row's value and col's
        (None with one name)."""
        k = stat if isinstance(stat, int) else self.stats.index(stat)
        return self._cells[k][self.rows.index(row)][self.cols.index(col)]

    def as_dicts(self):
        """A dict per cell, row by row: the names' values and each stat."""
        out = []
        for r, a in enumerate(self.rows):
            for c, b in enumerate(self.cols):
                d = dict(zip(self.names, (a, b)))
                d.update((s, self._cells[k][r][c]) for k, s in enumerate(self.stats))
                out.append(d)
        return out

    def __repr__(self):
        return f'Table({self.expression!r}, names={self.names}, stats={self.stats})'


def _cell(row):
    return [Fraction(c) if isinstance(c, str) else c for c in row]


@dataclass(frozen=True)
class PolicyRow:
    """One situation of a Policy: what the player `seen` ('6 5 3 2 1'),
    the `choice` best for the goal ('keep 6 5', 'keep all', 'double down'), the `chance`
    of seeing it, the goal's `value` with that choice (a Fraction in exact
    mode) and `plain`, its value without choosing (a float)."""
    seen: str
    choice: str
    chance: float
    value: object
    plain: float


class Policy:
    """The player's decisions at an expression's first choice point
    (Context.policy), as `alea policy --json` prints them: the `goal` as a
    person reads it ('the mean', 'the chance of >= 20'), `is_prob` whether
    its values are chances, `value` the expression's with its choices (the
    best ones, or a fixed policy's: dd(6, 14, always)) and `optimum` with
    the best ones, and `rows`, a PolicyRow per situation; situations that
    share a choice come one after another where the mechanic can order them
    so. Values are floats, Fractions in exact mode; `data` the library's
    JSON."""

    def __init__(self, data, exact=False):
        self.data = data
        self.expression = data['expression']
        self.goal = data['goal']
        self.is_prob = data['probability']
        self.value = _fraction(data['value'])
        self.optimum = _fraction(data['optimum'])
        self.exact = exact
        self.rows = [PolicyRow(r['seen'], r['choice'], float(r['chance']),
                               _fraction(r['value']), float(r['plain'])) for r in data['rows']]

    def __repr__(self):
        return f'Policy({self.expression!r}, goal={self.goal!r}, rows={len(self.rows)})'


def _fraction(v):
    """A value of the library's JSON: a Fraction for a fraction's text, a
    float for a number (1 and 1.0 alike)."""
    return Fraction(v) if isinstance(v, str) else float(v)


def _direction(d):
    return 'low' if d < 0 else 'high' if d > 0 else None


@dataclass(frozen=True)
class FairnessTest:
    """One test of alea.fairness (docs/fairness.md): `name` 'mean' (are
    the rolls low or high? `direction` 'low' or 'high'), 'ks' (their
    spread) or 'chi-square' (one `expression`'s counts against its
    distribution: `df`, its `outcomes`, the cells `pooled` into neighbours,
    as '3..4, 17..18'); `statistic`, its p-value `p` and `p_adjusted`
    (Holm's, over the tests run), and the `rolls` it used."""
    name: str
    expression: Optional[str]
    statistic: float
    p: float
    p_adjusted: float
    rolls: int
    direction: Optional[str] = None
    df: Optional[int] = None
    outcomes: Optional[int] = None
    pooled: Optional[str] = None


@dataclass(frozen=True)
class Fairness:
    """Whether rolls are what fair dice give (alea.fairness): `verdict`
    'fair', 'not fair' (a Holm-adjusted p-value below `alpha`, 0.01) or 'too
    few' (under 10 rolls), `text` the verdict for a person ('these rolls
    are lower than fair dice give: p = 0.003'), `direction` 'low' or 'high'
    when the mean test decided it, `p` the least adjusted p-value, `tests`
    (FairnessTest), `rolls` placed and the `seed` that placed them. As
    `alea fairness --json` prints it."""
    rolls: int
    seed: int
    verdict: str
    direction: Optional[str]
    p: float
    alpha: float
    text: str
    tests: tuple

    @property
    def fair(self):
        """False when the verdict is 'not fair'."""
        return self.verdict != 'not fair'


def _fairness_result(r, seed):
    tests = []
    for i in range(r.ntests):
        t = r.tests[i]
        name = t.name.decode()
        chi = t.expression is not None
        tests.append(FairnessTest(
            name, t.expression.decode(errors='replace') if chi else None, t.statistic, t.p,
            t.p_adjusted, t.rolls, _direction(t.direction) if name == 'mean' else None,
            t.df if chi else None, t.outcomes if chi else None,
            t.pooled.decode(errors='replace') if chi else None))
    return Fairness(r.rolls, seed, _FAIRNESS_VERDICTS[r.verdict], _direction(r.direction), r.p,
                    _FAIRNESS_ALPHA, r.text.decode(errors='replace'), tuple(tests))


def _fairness_rolls(rolls):
    """(index, expression, totals) for each roll: a pair, or a Roll (the
    totals of each roll of a repeat, placed all or none)."""
    for i, r in enumerate(rolls):
        if isinstance(r, Roll):
            yield i, r.expression, r.totals
            continue
        if not (isinstance(r, (tuple, list)) and len(r) == 2):
            raise TypeError(f'alea: fairness: roll {i} must be an (expression, total) pair or '
                            f'a Roll, not {type(r).__name__}')
        yield i, r[0], [_integer(r[1], f'roll {i}: the total', -2**63, _I64_MAX)]


def _percent(p):
    # two decimals; a chance too small for them keeps two significant digits
    x = float(p) * 100
    return f'{x:.2g}' if 0 < x < 0.005 else f'{x:.2f}'


def _columns(expressions):
    """compare()'s arguments as (name, expression) pairs: a str is named by
    itself, a (name, expression) pair by its name; names are unique."""
    if not expressions:
        raise ValueError('alea: compare needs at least one expression')
    out = []
    for x in expressions:
        if isinstance(x, tuple) and len(x) == 2 and all(isinstance(y, str) for y in x):
            name, src = x
            if not name:
                raise ValueError(f'alea: the name of {src!r} is empty')
        elif isinstance(x, str):
            name = src = x
        else:
            raise TypeError('alea: compare takes expressions (str) or (name, expression) '
                            f'pairs of str, not {type(x).__name__}')
        out.append((name, src))
    seen = set()
    for name, _ in out:
        if name in seen:
            raise ValueError(f'alea: two columns are named {name!r}; name them apart '
                             "with (name, expression) pairs")
        seen.add(name)
    return out


def _point(value):
    # A number to compare outcomes with: not a str that would match nothing.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'alea: a value of the distribution must be a number, '
                        f'not {type(value).__name__}')
    if value != value:
        raise ValueError('alea: a value of the distribution must be a number, not nan')
    return value


class Context:
    """A context of the library: limits (keyword `limits`, a mapping from
    names in LIMITS to integers of 0 or more; above LIMIT_MAX, the maximum),
    an explosion tail bound (`tail`, from 1e-300 to 1e-3), a deadline per
    evaluation (`timeout`, seconds above 0), a generator (`seed`, from 0
    to 2**64 - 1; else seeded from the OS), and the notation expressions are
    read in (`dialect`, one of DIALECTS: 'roll20' reads '3d6>3' as Roll20
    does). With `exact=True` distributions are computed in exact fractions
    (the library must be built with GMP, which pip install builds in). Not to be shared between threads; close()
    frees it (or use `with`)."""

    _ctx = None

    def __init__(self, limits=None, tail=None, timeout=None, seed=None, dialect='alea',
                 exact=False):
        # Every argument is checked before the library sees any.
        if limits is None:
            limits = {}
        if not isinstance(limits, Mapping):
            raise TypeError('alea: limits must be a mapping from limit names '
                            f'({", ".join(LIMITS)}) to integers, not {type(limits).__name__}')
        settings = [(_limit_index(name), _limit_value(name, value))
                    for name, value in limits.items()]
        if tail is not None:
            tail = _real(tail, 'tail', _TAIL_RANGE)
            if not _TAIL_MIN <= tail <= _TAIL_MAX:  # NaN fails this too
                raise ValueError(f'alea: tail must be {_TAIL_RANGE}, not {tail!r}')
        if timeout is not None:
            accepted = 'a finite number of seconds above 0 (None: no deadline)'
            seconds = _real(timeout, 'timeout', accepted)
            if not 0 < seconds < math.inf:  # NaN fails this too
                raise ValueError(f'alea: timeout must be {accepted}, not {seconds!r}')
        if seed is not None:
            seed = _seed_value(seed)
        dialect_index = _dialect_index(dialect)
        if not isinstance(exact, bool):
            raise TypeError(f'alea: exact must be True or False, not {type(exact).__name__}')

        self._ctx = _ctx_new(None, None)
        if not self._ctx:
            raise MemoryError('alea: out of memory')
        for index, value in settings:
            _ctx_limit(self._ctx, index, value)
        _ctx_set_dialect(self._ctx, dialect_index)
        if exact and _ctx_set_exact(self._ctx, 1) != 0:
            msg = _ctx_error(self._ctx).decode(errors='replace')
            self.close()
            raise ValueError(f'alea: {msg}')
        if tail is not None and _ctx_set_tail(self._ctx, tail) != 0:
            self.close()
            raise ValueError(f'alea: tail must be {_TAIL_RANGE}, not {tail!r}')
        self._deadline = math.inf
        self._timeout = timeout
        if timeout is not None:
            # A deadline through the library's interrupt hook; the callback
            # object must live as long as the context.
            self._seconds = seconds
            self._hook = _INTERRUPT(lambda ud: int(time.monotonic() > self._deadline))
            _ctx_set_interrupt(self._ctx, self._hook, None)
        if seed is not None:
            _ctx_seed(self._ctx, seed)

    def close(self):
        if self._ctx:
            _ctx_free(self._ctx)
            self._ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _live(self):
        # A closed context is a NULL pointer to the library: refused here.
        if not self._ctx:
            raise ValueError('alea: the context is closed')
        return self._ctx

    def seed(self, seed):
        """Seeds the generator: the same seed gives the same rolls everywhere.
        seed: an integer from 0 to 2**64 - 1."""
        seed = _seed_value(seed)
        _ctx_seed(self._live(), seed)

    def limit(self, name, value=None):
        """A limit's value; with `value` (an integer of 0 or more), sets it,
        lowered to its maximum (LIMIT_MAX[name]), and returns the previous
        value."""
        index = _limit_index(name)
        value = -1 if value is None else _limit_value(name, value)
        return _ctx_limit(self._live(), index, value)

    def _error(self, status, src):
        start, end = ctypes.c_size_t(), ctypes.c_size_t()
        _ctx_error_span(self._ctx, ctypes.byref(start), ctypes.byref(end))
        message = (_ctx_error(self._ctx) or b'').decode(errors='replace')
        name = _status_name(status).decode()
        line = _format(lambda c, _f, b, n: _ctx_error_line(c, b, n), self._ctx, 0).decode(
            errors='replace')
        if name == 'ALEA_ERR_INTERRUPTED' and self._timeout is not None:
            message = line = f'timed out after {self._timeout} s'
        return AleaError(message or _status_text(status).decode(), name, start.value,
                         end.value, src, line)

    def _compile(self, src):
        ctx = self._live()
        data = _encode(src, _ctx_limit(ctx, LIMITS.index('source'), -1))
        expr = _p()
        st = _expr_compile(ctx, data, len(data), ctypes.byref(expr))
        if st != 0:
            raise self._error(st, src)
        return expr

    def _arm(self):
        if self._timeout is not None:
            self._deadline = time.monotonic() + self._seconds

    def roll(self, expression, n=None, luck=False):
        """Rolls the expression: a Roll, or a list of n of them (n from 1 to
        2**63 - 1). The n breakdowns, held at once, count against the memory
        limit: more is ALEA_ERR_LIMIT (roll fewer at a time). With luck=True
        each Roll's `luck` places its total in the expression's exact
        distribution, computed once first within the limits (as `alea roll
        --luck`); a refused distribution never fails the rolls: their `luck`
        is None and `luck_refused` the reason."""
        if n is not None:
            n = _integer(n, 'n', 1, _I64_MAX, ' (2**63 - 1)')
        expr = self._compile(expression)
        r = _roll_new(self._ctx)
        d = _p()
        try:
            if not r:
                raise MemoryError('alea: out of memory')
            rolls = []
            held = 0
            memory = _ctx_limit(self._ctx, LIMITS.index('memory'), -1)
            self._arm()
            refused = None
            if luck:
                st = _expr_dist(self._ctx, expr, ctypes.byref(d))
                if st != 0:
                    d = _p()
                    refused = _format(lambda c, _f, b, k: _ctx_error_line(c, b, k), self._ctx,
                                      0).decode(errors='replace')
                self._arm()  # the rolls' own time
            for _ in range(1 if n is None else n):
                st = _expr_roll(self._ctx, expr, r)
                if st != 0:
                    raise self._error(st, expression)
                text = _format(_roll_format, r, _FORMAT_TEXT)
                detail = _format(_roll_format, r, _FORMAT_JSON)
                markdown = _format(_roll_format, r, _FORMAT_MARKDOWN)
                held += len(text) + len(detail) + len(markdown)
                if n is not None and held > memory:
                    raise AleaError(f'{n} rolls: their breakdowns come to more than the '
                                    f'memory limit ({memory} bytes); roll fewer at a time',
                                    'ALEA_ERR_LIMIT', 0, 0, expression)
                roll = Roll._parse(json.loads(detail.decode()), text.decode(), _hint(expr),
                                   markdown.decode())
                if d:
                    places = [_luck(d, t) for t in roll.totals]
                    got = places if 'repeat' in roll.detail else places[0]
                    roll.detail['luck'] = ([vars(x) for x in places] if 'repeat' in roll.detail
                                           else vars(got))
                    object.__setattr__(roll, 'luck', got)
                elif luck:
                    object.__setattr__(roll, 'luck_refused', refused)
                rolls.append(roll)
            return rolls[0] if n is None else rolls
        finally:
            _dist_free(d)
            _roll_free(r)
            _expr_free(expr)

    def dist(self, expression):
        """The exact distribution of the expression: a Dist."""
        self._arm()
        return self._dist(expression)

    def table(self, expression, *sweeps, stats=None):
        """The expression swept over values of its names, a statistic of
        its distribution in each cell: a Table, as `alea table` computes it.
        Each sweep is a str, NAME=A..B, NAME=A..B..STEP or NAME=A,B,C
        ('m=0..10', 'dc=10,12,14'): the first gives the rows, a second the
        columns. stats: a list of 'mean' (the default), 'sd', 'median',
        'p>=N', 'p<=N', 'p=N', 'pN' (a percentile) or a named probability
        the expression reports ('critical failure'). Where the language
        takes only a fixed number (dd()'s arguments, tier()'s steps,
        '+n DICE'), the values are written into the text. The cells are at
        most the 'cells' limit and share one work budget. An error in a
        sweep or a statistic is an AleaError whose expression is that text."""
        ctx = self._live()
        data = _encode(expression, _ctx_limit(ctx, LIMITS.index('source'), -1))
        stats = [] if stats is None else stats
        if isinstance(stats, str):
            raise TypeError(f'alea: stats must be a list of str, as [{stats!r}]')
        texts = list(sweeps), list(stats)
        for what, items in zip(('sweep', 'stat'), texts):
            for x in items:
                if not isinstance(x, str):
                    raise TypeError(f'alea: a {what} must be a str, not {type(x).__name__}')
        enc = [[x.encode('utf-8', 'replace') for x in items] for items in texts]
        sw = (ctypes.c_char_p * max(len(enc[0]), 1))(*enc[0])
        st = (ctypes.c_char_p * max(len(enc[1]), 1))(*enc[1])
        t = _p()
        self._arm()
        status = _table_new(ctx, data, len(data), sw, len(enc[0]), st, len(enc[1]),
                            ctypes.byref(t))
        if status != 0:
            index = ctypes.c_size_t()
            part = _table_error_part(ctx, ctypes.byref(index))
            raise self._error(status, texts[part - 1][index.value] if part else expression)
        try:
            text = _format(_table_format, t, _FORMAT_JSON)
            if not text:  # past the output limit: the library's refusal
                raise self._error(_ctx_error_span(ctx, None, None), expression)
            return Table(json.loads(text.decode()), bool(_ctx_exact(ctx)))
        finally:
            _table_free(t)

    def policy(self, expression):
        """The player's best choice in every situation of the expression's
        first choice point, as `alea policy` computes it: a Policy. An
        expression with no choice for the player (3d6) is an AleaError
        (ALEA_ERR_INVALID) with its span; the work is the expression's
        distribution's, within the same limits."""
        expr = self._compile(expression)
        p = _p()
        try:
            self._arm()
            status = _policy_new(self._ctx, expr, ctypes.byref(p))
            if status != 0:
                raise self._error(status, expression)
            text = _format(_policy_format, p, _FORMAT_JSON)
            if not text:  # past the output limit: the library's refusal
                raise self._error(_ctx_error_span(self._ctx, None, None), expression)
            return Policy(json.loads(text.decode()), bool(_ctx_exact(self._ctx)))
        finally:
            _policy_free(p)
            _expr_free(expr)

    def svg(self, *expressions):
        """The chart of `alea dist --svg` (one expression: bars) or `alea
        compare --svg` (2 to 16: a line each) as an SVG document, a str:
        titled, with every number as text for a screen reader and in full
        in data-y attributes, readable in grey print. Expressions as for
        compare (a str, or a (name, expression) pair); the output limit
        bounds it."""
        columns = _columns(expressions)
        if len(columns) > 16:
            raise ValueError(f'alea: svg draws at most 16 expressions, not {len(columns)}')
        kept = []
        self._arm()
        try:
            for _, src in columns:
                self._dist(src, kept)
            ds = (_p * len(kept))(*kept)
            names = (ctypes.c_char_p * len(kept))(
                *[None if name == src else name.encode() for name, src in columns])
            n = _svg_dists(ds, names, len(kept), None, 0)
            if n == 0:  # past the output limit: the library's refusal
                raise self._error(_ctx_error_span(self._ctx, None, None), columns[0][1])
            buf = ctypes.create_string_buffer(n + 1)
            _svg_dists(ds, names, len(kept), buf, n + 1)
            return buf.raw[:n].decode()
        finally:
            for d in kept:
                _dist_free(d)

    def compare(self, *expressions, max_cells=None, pairs=False):
        """The distributions of several expressions side by side: a
        Comparison. Each is a str, named by itself, or a (name, expression)
        pair: ctx.compare('1d20+5', ('advantage', '2d20kh1+2')); a dict's
        items will do (ctx.compare(*columns.items())). All within one set of
        limits, as `alea compare`: the work limit is one budget that the
        columns share (each gets what the ones before left), their outcomes
        together stay within the support limit, and the timeout is one
        deadline for the whole comparison. The table (values x columns) has
        at most max_cells cells (default COMPARE_CELLS_MAX), so that its
        rows fit in memory. Its versus: each column against the first, or
        every pair with pairs=True (as `alea compare --pairs`), within the
        same work budget."""
        columns = _columns(expressions)
        cells_max = _integer(COMPARE_CELLS_MAX if max_cells is None else max_cells,
                             'max_cells', 1, None)
        ctx = self._live()
        work = _ctx_limit(ctx, LIMITS.index('work'), -1)
        support = _ctx_limit(ctx, LIMITS.index('support'), -1)
        dists, kept = [], []
        self._arm()
        try:
            return self._compare(columns, cells_max, ctx, work, support, dists, kept, pairs)
        finally:
            for d in kept:
                _dist_free(d)

    def fairness(self, rolls, seed=None):
        """Whether the rolls are what fair dice give: a Fairness, as `alea
        fairness` judges a log (docs/fairness.md). rolls: an iterable of
        (expression, total) pairs or Roll objects (each roll of a repeat
        counts). `seed` (0 to 2**64 - 1) seeds the draws that place each
        roll; without it, a seed from the context's generator (shown in the
        result). Each distinct expression is compiled and its exact
        distribution computed once, all sharing one work budget and the
        timeout. A roll the library refuses (a bad expression, a total it
        cannot give: 'd20', 21) raises AleaError, its message after 'roll
        N: ' (N its index in rolls)."""
        ctx = self._live()
        seed = _seed_value(seed) if seed is not None else _ctx_random(ctx)
        f = _fairness_new(ctx, seed)
        if not f:
            raise MemoryError('alea: out of memory')
        work = _ctx_limit(ctx, LIMITS.index('work'), -1)
        spent = 0
        self._arm()
        try:
            for i, src, totals in _fairness_rolls(rolls):
                data = _encode(src, _ctx_limit(ctx, LIMITS.index('source'), -1))
                _ctx_limit(ctx, LIMITS.index('work'), max(work - spent, 0))
                places = (ctypes.c_int64 * len(totals))(*totals)
                try:
                    st = _fairness_add_rolls(f, data, len(data), places, len(totals))
                finally:
                    spent += _ctx_work(ctx)
                    _ctx_limit(ctx, LIMITS.index('work'), work)
                if st != 0:
                    e = self._error(st, src)
                    raise AleaError(f'roll {i}: {e.message}', e.status, e.start, e.end, src,
                                    f'roll {i}: {e.line}')
            r = _FairnessResult()
            st = _fairness_judge(f, ctypes.byref(r))
            if st != 0:
                raise self._error(st, '')
            return _fairness_result(r, seed)
        finally:
            _fairness_free(f)

    def _compare(self, columns, cells_max, ctx, work, support, dists, kept, pairs):
        spent = total = 0
        for name, src in columns:
            _ctx_limit(ctx, LIMITS.index('work'), work - spent)
            try:
                d = self._dist(src, kept)
            except AleaError as e:
                if e.status != 'ALEA_ERR_LIMIT' or not dists or 'work limit' not in e.message:
                    raise
                raise AleaError(f'compare: the columns need more work in all than the work '
                                f'limit ({work}) allows; compare fewer expressions, or raise '
                                "the 'work' limit", 'ALEA_ERR_LIMIT', 0, 0, src) from None
            finally:
                spent += _ctx_work(ctx)
                _ctx_limit(ctx, LIMITS.index('work'), work)
            total += len(d.outcomes)
            if total > support:
                raise AleaError(f'compare: the columns have more than {support} outcomes in '
                                'all (support limit, for the whole table); compare fewer '
                                "expressions, or raise the 'support' limit", 'ALEA_ERR_LIMIT',
                                0, 0, src)
            dists.append(d)
        versus = []
        for a in range(len(kept)):
            for b in range(a + 1, len(kept) if pairs or a == 0 else 0):
                _ctx_limit(ctx, LIMITS.index('work'), max(work - spent, 0))
                try:
                    versus.append(self._versus(kept, a, b, columns[b][1],
                                               dists[a].exact and dists[b].exact))
                except AleaError as e:
                    if e.status != 'ALEA_ERR_LIMIT':
                        raise
                    raise AleaError(f'compare: the columns and the distances between them '
                                    f'need more work in all than the work limit ({work}) '
                                    "allows; compare fewer expressions, or raise the 'work' "
                                    'limit', 'ALEA_ERR_LIMIT', 0, 0, columns[b][1]) from None
                finally:
                    spent += _ctx_work(ctx)
                    _ctx_limit(ctx, LIMITS.index('work'), work)
        c = Comparison([name for name, _ in columns], dists, versus)
        cells = len(c.outcomes) * len(c.names)
        if cells > cells_max:
            raise AleaError(f'compare: the table would have {cells} cells ({len(c.outcomes)} '
                            f'values x {len(c.names)} columns), more than max_cells '
                            f'({cells_max}); compare fewer expressions, or raise max_cells',
                            'ALEA_ERR_LIMIT', 0, 0, columns[-1][1])
        return c

    def _versus(self, kept, a, b, src, exact):
        """The distances of columns a and b (alea_dist_versus), their
        fractions when both are exact."""
        v = _Versus()
        st = _dist_versus(self._ctx, kept[a], kept[b], ctypes.byref(v))
        if st != 0:
            raise self._error(st, src)
        out = {'a': a, 'b': b, **{k: getattr(v, k) for k, _ in _Versus._fields_}}
        n = ctypes.c_size_t()
        if exact:
            st = _dist_versus_fractions(self._ctx, kept[a], kept[b], None, 0, ctypes.byref(n))
            if st != 0:
                raise self._error(st, src)
            buf = ctypes.create_string_buffer(n.value + 1)
            st = _dist_versus_fractions(self._ctx, kept[a], kept[b], buf, n.value + 1,
                                        ctypes.byref(n))
            if st != 0:
                raise self._error(st, src)
            for (k, _), q in zip(_Versus._fields_, buf.value.decode().split()):
                out[k] = Fraction(q)
        return out

    def _dist(self, expression, kept=None):
        """The expression's Dist; with kept, its alea_dist is appended there
        (the caller frees it) rather than freed."""
        expr = self._compile(expression)
        d = _p()
        try:
            st = _expr_dist(self._ctx, expr, ctypes.byref(d))
            if st != 0:
                raise self._error(st, expression)
            try:
                text = _format(_dist_format, d, _FORMAT_JSON)
                if not text:  # past the output limit: the library's refusal
                    raise self._error(_ctx_error_span(self._ctx, None, None), expression)
                data = json.loads(text.decode())
                columns = None
                if not data.get('exact'):
                    n = _dist_count(d)
                    least, most = (ctypes.c_double * max(n, 1))(), (ctypes.c_double * max(n, 1))()
                    _dist_cumulate(d, least, most)
                    columns = (least[:n], most[:n])
                return Dist(data, _hint(expr), _dist_median(d), columns)
            finally:
                if kept is None:
                    _dist_free(d)
                else:
                    kept.append(d)
        finally:
            _expr_free(expr)


def _luck(d, total):
    """total's Luck in the alea_dist d."""
    most, least = ctypes.c_double(), ctypes.c_double()
    _dist_luck(d, total, ctypes.byref(most), ctypes.byref(least))
    return Luck(most.value, least.value)


def _hint(expr):
    h = _expr_hint(expr)
    return h.decode(errors='replace') if h else None


def _encode(src, limit):
    """The expression's UTF-8 bytes for the library. Not a str: TypeError.
    Longer than the source limit: the library's error, found without
    encoding a copy of a huge text. Not encodable (a lone surrogate, as
    json.loads makes of a stranger's "\\ud800"): AleaError, as any
    character the library does not understand."""
    if not isinstance(src, str):
        hint = " (decode it first: data.decode('utf-8'))" if isinstance(
            src, (bytes, bytearray, memoryview)) else ''
        raise TypeError(f'alea: the expression must be a str, not {type(src).__name__}{hint}')
    if len(src) > limit:  # at least one byte a character: too long whatever it holds
        size = len(src) if src.isascii() else sum(
            len(src[i:i + 65536].encode('utf-8', 'surrogatepass'))
            for i in range(0, len(src), 65536))
        raise AleaError(f'expression too long: {size} bytes (source limit is {limit})',
                        'ALEA_ERR_LIMIT', limit, size, src)
    try:
        return src.encode('utf-8')
    except UnicodeEncodeError as e:
        at = len(src[:e.start].encode('utf-8', 'surrogatepass'))
        msg = (f'unexpected U+{ord(src[e.start]):04X} at byte {at} (a lone surrogate, '
               'which is not text; only ASCII dice notation is understood)')
        raise AleaError(msg, 'ALEA_ERR_SYNTAX', at, at + 3, src, 'syntax error: ' + msg) from None


def _format(fn, obj, fmt):
    """What the library writes, as bytes: sized by a first call with cap 0,
    so Python holds no more than the library's own output."""
    n = fn(obj, fmt, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    written = fn(obj, fmt, buf, n + 1)
    return buf.raw[:min(n, written)]


_local = threading.local()


DIALECTS = tuple(_dialect_name(i).decode() for i in range(5))


def _dialect_index(dialect):
    if not isinstance(dialect, str):
        raise TypeError(f'alea: dialect must be a str (one of {", ".join(DIALECTS)}), '
                        f'not {type(dialect).__name__}')
    if dialect.lower() not in DIALECTS:
        raise ValueError(f'alea: no dialect {dialect!r}: one of {", ".join(DIALECTS)}')
    return DIALECTS.index(dialect.lower())


def _default(dialect='alea', exact=False):
    """The thread's context for each dialect (and number system) the module
    functions use."""
    ctxs = getattr(_local, 'ctxs', None)
    if ctxs is None:
        ctxs = _local.ctxs = {}
    key = (_dialect_index(dialect), exact is True)
    if key not in ctxs:
        ctxs[key] = Context(dialect=DIALECTS[key[0]], exact=exact)
    return ctxs[key]


def roll(expression, seed=None, n=None, dialect='alea', luck=False):
    """Rolls the expression once (a Roll), or n times (a list). With `seed`,
    the rolls are those of `alea roll --seed SEED`; `dialect` as Context's;
    `luck` as Context.roll's."""
    ctx = _default(dialect)
    if seed is not None:
        ctx.seed(seed)
    return ctx.roll(expression, n, luck)


def dist(expression, dialect='alea', exact=False):
    """The exact distribution of the expression (a Dist), with the default
    limits; `dialect` and `exact` (fractions) as Context's."""
    return _default(dialect, exact).dist(expression)


def svg(*expressions, dialect='alea'):
    """The chart of the expressions as an SVG document (Context.svg), with
    the default limits."""
    return _default(dialect, False).svg(*expressions)


def compare(*expressions, dialect='alea', exact=False, max_cells=None, pairs=False):
    """The distributions of several expressions side by side (a Comparison),
    with the default limits, shared as Context.compare says. Each is a str,
    named by itself, or a (name, expression) pair; `dialect` and `exact` as
    dist's, `max_cells` and `pairs` as Context.compare's."""
    return _default(dialect, exact).compare(*expressions, max_cells=max_cells, pairs=pairs)


def table(expression, *sweeps, stats=None, dialect='alea', exact=False):
    """The expression swept over values of its names (a Table), with the
    default limits: alea.table('d20 + m >= dc', 'm=0..10', 'dc=10..20');
    sweeps and stats as Context.table's, `dialect` and `exact` as dist's."""
    return _default(dialect, exact).table(expression, *sweeps, stats=stats)


__all__ += ['Table', 'table']


def fairness(rolls, seed=None, dialect='alea'):
    """Whether the rolls, (expression, total) pairs or Roll objects, are what
    fair dice give: a Fairness (Context.fairness), with the default limits;
    `seed` places the rolls reproducibly; `dialect` as Context's."""
    return _default(dialect).fairness(rolls, seed)


def policy(expression, dialect='alea', exact=False):
    """The player's best choice in every situation of the expression's
    choice point (a Policy), with the default limits:
    alea.policy('dd(3, 14, best)'); `dialect` and `exact` as dist's."""
    return _default(dialect, exact).policy(expression)


__all__ += ['Policy', 'PolicyRow', 'policy']
