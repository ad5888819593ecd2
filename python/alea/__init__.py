"""alea: tabletop dice, rolled with every die shown or computed exactly.

The C library (libalea.so.0) through ctypes; nothing from PyPI.

    >>> import alea
    >>> alea.roll("4d6kh3", seed=7).text
    '4d6kh3 [5, 2 dropped, 6, 6] = 17'
    >>> d = alea.dist("2d6")
    >>> d.p(7), d.mean
    (0.16666666666666666, 7.0)

A `Context` holds limits, a deadline and a generator; the module-level
functions use one context per thread. Errors raise `AleaError`, which has the
message, the status and the byte span of the expression it concerns.

The library is found through the ALEA_LIBRARY environment variable (a path),
else as libalea.so.0 where the dynamic loader looks (an installed alea).
"""

import ctypes
import ctypes.util
import json
import os
import threading
import time

__all__ = ['AleaError', 'Context', 'Dist', 'Roll', 'dist', 'roll', 'version', 'LIMITS']


def _load():
    path = os.environ.get('ALEA_LIBRARY')
    names = [path] if path else ['libalea.so.0', ctypes.util.find_library('alea')]
    errors = []
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise ImportError('alea: the C library libalea.so.0 was not found (install alea with '
                      "'cmake --install', or set ALEA_LIBRARY to its path): " + '; '.join(errors))


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
_ctx_error_span = _sig('alea_ctx_error_span', ctypes.c_int, _p,
                       ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t))
_ctx_limit = _sig('alea_ctx_limit', ctypes.c_int64, _p, ctypes.c_int, ctypes.c_int64)
_limit_name = _sig('alea_limit_name', ctypes.c_char_p, ctypes.c_int)
_ctx_set_tail = _sig('alea_ctx_set_tail', ctypes.c_int, _p, ctypes.c_double)
_ctx_set_interrupt = _sig('alea_ctx_set_interrupt', None, _p, _INTERRUPT, _p)
_ctx_seed = _sig('alea_ctx_seed', None, _p, ctypes.c_uint64)
_ctx_seed_os = _sig('alea_ctx_seed_os', ctypes.c_int, _p)
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
_dist_format = _sig('alea_dist_format', ctypes.c_size_t, _p, ctypes.c_int, ctypes.c_char_p,
                    ctypes.c_size_t)

_FORMAT_TEXT, _FORMAT_JSON = 0, 1

#: The limits a Context takes, by name: the library's, in its order.
LIMITS = []
for _i in range(64):
    _n = _limit_name(_i)
    if _n is None:
        break
    LIMITS.append(_n.decode())


def version():
    """The version of the C library loaded, e.g. '0.1.0'."""
    return _version().decode()


class AleaError(Exception):
    """A bad expression or a limit reached. `status` is the library's name
    for it ('ALEA_ERR_SYNTAX', 'ALEA_ERR_LIMIT', ...), `start` and `end` the
    byte span of the expression it concerns, `expression` the text."""

    def __init__(self, message, status, start, end, expression):
        super().__init__(message)
        self.message = message
        self.status = status
        self.start = start
        self.end = end
        self.expression = expression

    def caret(self):
        """The expression and a caret line under the problem, as the command
        line prints them."""
        src = self.expression
        lead = len(src.encode()[:self.start].decode(errors='replace'))
        width = max(1, len(src.encode()[self.start:self.end].decode(errors='replace')))
        return f'{src}\n{" " * lead}{"^" * width}'


class Roll:
    """One roll: its total, the breakdown line, and every die (the JSON
    breakdown, parsed)."""

    def __init__(self, total, text, detail):
        self.total = total
        self.text = text
        self.detail = detail

    @property
    def dice(self):
        return self.detail['dice']

    def __repr__(self):
        return f'Roll({self.text!r})'


class Dist:
    """An exact distribution: `outcomes` maps each value to its probability
    (ascending); mean, sd, min, max, and the mass cut from explosion tails
    (`truncated`). `labels` names values (dd() tiers), `flags` holds named
    probabilities (an event() pool's 'critical failure')."""

    def __init__(self, data):
        self.expression = data['expression']
        self.outcomes = {v: p for v, p in data['outcomes']}
        self.mean = data['mean']
        self.sd = data['sd']
        self.min = data['min']
        self.max = data['max']
        self.truncated = data['truncated']
        self.labels = {v: name for v, name in data.get('labels', [])}
        self.flags = data.get('flags', {})

    def p(self, value):
        """P(X = value)."""
        return self.outcomes.get(value, 0.0)

    def at_least(self, value):
        return sum(p for v, p in self.outcomes.items() if v >= value)

    def at_most(self, value):
        return sum(p for v, p in self.outcomes.items() if v <= value)

    def __repr__(self):
        return f'Dist({self.expression!r}, {len(self.outcomes)} outcomes, mean {self.mean:.4g})'


class Context:
    """A context of the library: limits (keyword `limits`, by name as in
    LIMITS), an explosion tail bound, a deadline per evaluation (`timeout`,
    in seconds), and a generator (`seed`, else seeded from the OS). Not to be
    shared between threads; close() frees it (or use `with`)."""

    def __init__(self, limits=None, tail=None, timeout=None, seed=None):
        self._ctx = _ctx_new(None, None)
        if not self._ctx:
            raise MemoryError('alea: out of memory')
        for name, value in (limits or {}).items():
            if name not in LIMITS:
                self.close()
                raise ValueError(f'alea: unknown limit {name!r} (one of {", ".join(LIMITS)})')
            _ctx_limit(self._ctx, LIMITS.index(name), int(value))
        if tail is not None and _ctx_set_tail(self._ctx, float(tail)) != 0:
            self.close()
            raise ValueError(f'alea: tail bound {tail} outside [1e-300, 1e-3]')
        self._deadline = None
        self._timeout = timeout
        if timeout is not None:
            # A deadline through the library's interrupt hook; the callback
            # object must live as long as the context.
            self._hook = _INTERRUPT(lambda ud: int(time.monotonic() > self._deadline))
            _ctx_set_interrupt(self._ctx, self._hook, None)
        if seed is not None:
            self.seed(seed)

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

    def seed(self, seed):
        """Seeds the generator: the same seed gives the same rolls everywhere."""
        _ctx_seed(self._ctx, int(seed) & 0xFFFFFFFFFFFFFFFF)

    def limit(self, name, value=None):
        """A limit's value; with `value`, sets it (lowered to its maximum)."""
        return _ctx_limit(self._ctx, LIMITS.index(name), -1 if value is None else int(value))

    def _error(self, status, src):
        start, end = ctypes.c_size_t(), ctypes.c_size_t()
        _ctx_error_span(self._ctx, ctypes.byref(start), ctypes.byref(end))
        message = (_ctx_error(self._ctx) or b'').decode(errors='replace')
        name = _status_name(status).decode()
        if name == 'ALEA_ERR_INTERRUPTED' and self._timeout is not None:
            message = f'timed out after {self._timeout} s'
        return AleaError(message or _status_text(status).decode(), name, start.value,
                         end.value, src)

    def _compile(self, src):
        data = src.encode()
        expr = _p()
        st = _expr_compile(self._ctx, data, len(data), ctypes.byref(expr))
        if st != 0:
            raise self._error(st, src)
        return expr

    def _arm(self):
        if self._timeout is not None:
            self._deadline = time.monotonic() + self._timeout

    def roll(self, expression, n=None):
        """Rolls the expression: a Roll, or a list of n of them."""
        expr = self._compile(expression)
        r = _roll_new(self._ctx)
        try:
            if not r:
                raise MemoryError('alea: out of memory')
            rolls = []
            self._arm()
            for _ in range(1 if n is None else n):
                st = _expr_roll(self._ctx, expr, r)
                if st != 0:
                    raise self._error(st, expression)
                rolls.append(Roll(_roll_total(r), _format(_roll_format, r, _FORMAT_TEXT),
                                  json.loads(_format(_roll_format, r, _FORMAT_JSON))))
            return rolls[0] if n is None else rolls
        finally:
            _roll_free(r)
            _expr_free(expr)

    def dist(self, expression):
        """The exact distribution of the expression: a Dist."""
        expr = self._compile(expression)
        d = _p()
        try:
            self._arm()
            st = _expr_dist(self._ctx, expr, ctypes.byref(d))
            if st != 0:
                raise self._error(st, expression)
            try:
                return Dist(json.loads(_format(_dist_format, d, _FORMAT_JSON)))
            finally:
                _dist_free(d)
        finally:
            _expr_free(expr)


def _format(fn, obj, fmt):
    n = fn(obj, fmt, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    fn(obj, fmt, buf, n + 1)
    return buf.value.decode()


_local = threading.local()


def _default():
    ctx = getattr(_local, 'ctx', None)
    if ctx is None:
        ctx = _local.ctx = Context()
    return ctx


def roll(expression, seed=None, n=None):
    """Rolls the expression once (a Roll), or n times (a list). With `seed`,
    the rolls are those of `alea roll --seed SEED`."""
    ctx = _default()
    if seed is not None:
        ctx.seed(seed)
    return ctx.roll(expression, n)


def dist(expression):
    """The exact distribution of the expression (a Dist), with the default
    limits."""
    return _default().dist(expression)
