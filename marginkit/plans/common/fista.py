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

from ...core.backend import NUMPY, Backend

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


def fista_theta(theta, sqrt=math.sqrt):
    """Beck–Teboulle: ``θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2`` and the momentum ``β_k = (θ_k − 1)/θ_{k+1}`` (``θ_k`` a
    number, or a 0-d array of a device after a restart there, with the backend's ``sqrt``: it stays a 0-d array)."""
    nxt = 0.5 * (1.0 + sqrt(1.0 + 4.0 * theta * theta))
    return nxt, (theta - 1.0) / nxt


def constant_momentum(kappa: float) -> float:
    """V-FISTA's ``β = (√κ − 1)/(√κ + 1)`` for a condition number ``κ = L/μ`` (Beck 2017, §10.7.7)."""
    return (np.sqrt(kappa) - 1) / (np.sqrt(kappa) + 1)


def extrapolate(x: Point, x_prev: Point, beta: float) -> Point:
    """``y = x + β(x − x_prev)``, block by block and image by image."""
    return Point(tuple(a + beta * (a - b) for a, b in zip(x.blocks, x_prev.blocks)),
                 tuple(a + beta * (a - b) for a, b in zip(x.images, x_prev.images)))


@dataclass(frozen=True)
class MomentumRule:
    """How ``β_k`` is chosen: ``beta=None`` is FISTA's θ-sequence, a number is a constant momentum (V-FISTA);
    ``restart`` is ``None``, ``"gradient"`` or ``"function"`` (then :func:`fista_step` needs ``value``); ``bk`` is the
    backend of the iterates (:mod:`marginkit.core.backend`): on a device ``θ``, ``β``, the restart counter and the
    restart test may be 0-d arrays there, so a step never waits for the device."""

    beta: float | None = None
    restart: str | None = None
    restart_min: int = 1
    bk: Backend = NUMPY

    def advance(self, m: Momentum, x_next: Point, y: Point, x: Point, value=None) -> tuple[Momentum, float]:
        """The momentum after the step ``y_k -> x_{k+1}`` from ``x_k``, and ``β_k``."""
        bk = self.bk
        if self.beta is None:
            theta, beta = fista_theta(m.theta, bk.sqrt)
        else:
            theta, beta = 1.0, self.beta
        since = m.since + 1
        fx = math.inf
        if self.restart == "function":
            fx = value(x_next)
            fire = fx > m.value
        elif self.restart == "gradient":
            xp = bk.xp
            fire = bk.lazy(sum(bk.vdot(xp.reshape(a - b, (-1,)), xp.reshape(b - c, (-1,)))
                               for a, b, c in zip(y.blocks, x_next.blocks, x.blocks))) > 0
        else:
            return Momentum(theta, since, fx), beta
        fire = bk.where(since >= self.restart_min, fire, False)
        return Momentum(bk.where(fire, 1.0, theta), bk.where(fire, 0, since), fx), bk.where(fire, 0.0, beta)


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
