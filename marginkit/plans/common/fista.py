"""The one accelerated projected-gradient (FISTA) iteration of marginkit (JAXopt's ``proximal_gradient`` idea).

Every FISTA-type plan runs :func:`fista_step` with its own injected callables; the momentum and extrapolation
arithmetic exists only here. For ``min f(x)`` over a closed convex set with ``∇f`` ``L``-Lipschitz (a
maximisation passes ``−g``)::

    x_{k+1} = prox(y_k + d(y_k)/L),        d = −∇f  (the ``descent`` callable), prox = the projection
    θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2,     β_k = (θ_k − 1)/θ_{k+1}          (Beck–Teboulle, "fista")
      or    β_k = (√κ − 1)/(√κ + 1),       κ = L/μ                          (V-FISTA, μ-strongly convex f,
                                                                             Beck 2017 §10.7.7, Thm 10.42)
    y_{k+1} = x_{k+1} + β_k (x_{k+1} − x_k)

Optional restarts (O'Donoghue & Candès 2015) reset the momentum (``θ ← 1``, ``β_k = 0``): ``"function"`` when
``f(x_{k+1}) > f(x_k)``, ``"gradient"`` when ``(y_k − x_{k+1})ᵀ(x_{k+1} − x_k) > 0``; ``restart_min`` spaces them.

A point is a :class:`Point`: the ``blocks`` the projection acts on and ``images``, linear images of the blocks
(``𝒜x``, ``HHᵀr``) that the extrapolation carries by linearity, so a step needs one product with the operator and
one with its adjoint. Used by :mod:`marginkit.plans.hough_vavasis.esp` (FISTA on (5) of Hough & Vavasis over a
product of second-order cones) and :mod:`marginkit.plans.hough_vavasis.svm_dual` (V-FISTA on the perturbed dual
(15), FISTA with function restart on the SVM dual (12)), after M. Hough, S. A. Vavasis, *Data-dependent complexity of
first-order methods for binary classification* (2025), §4.1–4.2, and Beck, *First-Order Methods in Optimization*
(2017), §10.7 (FISTA, V-FISTA).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

RESTARTS = ("gradient", "function")


class Point(NamedTuple):
    """A point of the iteration: the ``blocks`` (arrays) the projection acts on and linear ``images`` of them,
    carried through the extrapolation by linearity (never recomputed at ``y_k``)."""

    blocks: tuple
    images: tuple = ()


class Momentum(NamedTuple):
    """The momentum part of a FISTA state."""

    theta: float = 1.0        # θ_k (the paper's t_k of §4.1); stays 1 under a constant momentum
    since: int = 0            # iterations since the momentum was last reset
    value: float = math.inf   # f(x_k), kept for the function restart only


def fista_theta(theta: float) -> tuple[float, float]:
    """Beck–Teboulle: ``θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2`` and the momentum ``β_k = (θ_k − 1)/θ_{k+1}``."""
    nxt = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
    return nxt, (theta - 1.0) / nxt


def constant_momentum(kappa: float) -> float:
    """V-FISTA's ``β = (√κ − 1)/(√κ + 1)`` for a condition number ``κ = L/μ`` (Beck 2017, §10.7.7)."""
    return (np.sqrt(kappa) - 1) / (np.sqrt(kappa) + 1)


def extrapolate(x: Point, x_prev: Point, beta: float) -> Point:
    """``y = x + β(x − x_prev)``, block by block and image by image."""
    return Point(tuple(a + beta * (a - b) for a, b in zip(x.blocks, x_prev.blocks)),
                 tuple(a + beta * (a - b) for a, b in zip(x.images, x_prev.images)))


def _inner(u: tuple, v: tuple) -> float:
    total = 0.0
    for a, b in zip(u, v):
        total += float(np.dot(a.ravel(), b.ravel()))
    return total


@dataclass(frozen=True)
class MomentumRule:
    """How ``β_k`` is chosen: ``beta=None`` is FISTA's θ-sequence, a number is a constant momentum (V-FISTA);
    ``restart`` is ``None``, ``"gradient"`` or ``"function"`` (then :func:`fista_step` needs ``value``)."""

    beta: float | None = None
    restart: str | None = None
    restart_min: int = 1
    xp: object = None   # the namespace of a device (torch, CuPy, array-api-strict): θ, β and the restart test stay there

    def advance(self, m: Momentum, x_next: Point, y: Point, x: Point, value=None) -> tuple[Momentum, float]:
        """The momentum after the step ``y_k -> x_{k+1}`` from ``x_k``, and ``β_k``."""
        if self.xp is not None:
            return self._advance_on_device(m, x_next, y, x, value)
        if self.beta is None:
            theta, beta = fista_theta(m.theta)
        else:
            theta, beta = 1.0, self.beta
        since = m.since + 1
        fx = math.inf
        if self.restart == "function":
            fx = value(x_next)
            if fx > m.value and since >= self.restart_min:
                theta, beta, since = 1.0, 0.0, 0
        elif self.restart == "gradient" and since >= self.restart_min:
            step = tuple(a - b for a, b in zip(y.blocks, x_next.blocks))
            move = tuple(a - b for a, b in zip(x_next.blocks, x.blocks))
            if _inner(step, move) > 0:
                theta, beta, since = 1.0, 0.0, 0
        return Momentum(theta, since, fx), beta

    def _advance_on_device(self, m, x_next, y, x, value):
        """:meth:`advance` with ``θ``, ``β``, the restart counter and ``f(x_k)`` as 0-d arrays of ``xp``: the restart
        test is an ``xp.where``, so a step never waits for the device (the same arithmetic as on the host)."""
        xp = self.xp
        if self.beta is None:
            theta = 0.5 * (1.0 + (1.0 + 4.0 * m.theta * m.theta) ** 0.5)
            beta = (m.theta - 1.0) / theta
        else:
            theta, beta = 1.0, self.beta
        since = m.since + 1
        fx = math.inf
        if self.restart == "function":
            fx = value(x_next)
            fire = fx > m.value
        elif self.restart == "gradient":
            inner = sum(xp.sum((a - b) * (b - c)) for a, b, c in zip(y.blocks, x_next.blocks, x.blocks))
            fire = inner > 0.0
        else:
            return Momentum(theta, since, fx), beta
        if not isinstance(since, (int, float)) or since >= self.restart_min:
            if not isinstance(since, (int, float)):
                fire = xp.logical_and(fire, since >= self.restart_min)
            zero = _zero_like(x_next, xp)
            theta = xp.where(fire, zero + 1.0, zero + theta)
            beta = xp.where(fire, zero, zero + beta)
            since = xp.where(fire, zero, zero + since)
        return Momentum(theta, since, fx), beta


def _zero_like(point: Point, xp):
    """A 0-d zero of the iterate's dtype and device."""
    return xp.zeros_like(xp.reshape(point.blocks[0], (-1,))[0])


def fista_step(x: Point, y: Point, momentum: Momentum, *, descent: Callable, prox: Callable, L: float,
               rule: MomentumRule, value: Callable | None = None):
    """One accelerated projected-gradient iteration from ``x_k`` and the extrapolated ``y_k``.

    ``descent(y) -> blocks`` is ``−∇f(y)`` (it may read ``y.images``); ``prox(blocks) -> (Point, aux)`` projects
    and computes the images of the new point (``aux`` is passed back untouched: a plan's by-products such as a
    projection multiplier); ``value(point) -> f`` is needed by the function restart only.
    Returns ``(x_{k+1}, y_{k+1}, momentum, aux)``."""
    u = tuple(b + g / L for b, g in zip(y.blocks, descent(y)))
    x_next, aux = prox(u)
    momentum, beta = rule.advance(momentum, x_next, y, x, value)
    return x_next, extrapolate(x_next, x, beta), momentum, aux
