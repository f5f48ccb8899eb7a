"""The door for plan authors: everything a method written outside marginkit uses, importable from this one module.

A method is a plan class (the hooks of :class:`IterationPlan`; :class:`MarginPlan` for the hard margin) and a
:class:`MethodCard` that says which problems it solves; :func:`register_method` (or the entry-point group
``marginkit.methods``, :data:`ENTRY_POINT_GROUP`) adds it to ``methods()``, ``solve``, ``compile``, ``cross_validate``,
``marginkit compare`` and ``MarginClassifier``, and :func:`check_plan` holds it to the contract marginkit's own methods
keep. docs/ARCHITECTURE.md ("Adding a method") lists every card field and hook.

* the plan: :class:`IterationPlan`, :class:`MarginPlan` and its :class:`MarginState`, :class:`Budget` (what ``init``
  and ``stop`` are given), :class:`Memo` and :func:`memoized` (the run's cache of a certificate the trace and the stop
  test share), :class:`Solution` (what ``solution`` returns), :data:`STATUSES` (what ``stop`` may return: ``None``,
  or a status other than ``"user_limit"``, which the loop decides), :func:`parse_warm_start`;
* its parameters: :class:`Interval`, :class:`Options`, :class:`Boolean`, :class:`IsCallable`, :class:`InstanceOf`,
  :class:`ListOf` (the constraints of ``Config.constraints``);
* the data: :class:`Backend` (``self.bk``: ``matvec``, ``rmatvec``, ``xp``, ``xd``, ``zeros_n``, ``zeros_d``,
  ``norm``, ``vdot``, ``float``, ``row_sq_norms``, ``spectral_norm_sq``, ``add_at``, ...) and :func:`backend_of`;
* the card: :class:`MethodCard`, :class:`Theorem`, :data:`FEATURES` (what ``admits`` may name: ``"kernel"``,
  ``"bias"``, ``"weights"``; a card admits none of them unless it says so), :data:`CHECKS` (the predicates
  ``requires`` may name);
* the door: :func:`register_method`, :func:`unregister_method`, :func:`registered`, :class:`PluginWarning`;
* the checks: :func:`check_plan`, :func:`check_obligation`, :data:`OBLIGATIONS`, :class:`PlanContractError`; the
  errors :class:`ProblemError` (bad input) and :class:`PlanError` (a plan that broke the protocol while it ran).
"""
from .api.testing import OBLIGATIONS, PlanContractError, check_obligation, check_plan
from .core.backend import Backend, backend_of
from .core.errors import PlanError, ProblemError
from .core.params import Boolean, InstanceOf, Interval, IsCallable, ListOf, Options
from .core.result import STATUSES
from .core.solution import Solution
from .core.warmstart import parse_warm_start
from .engine.plugins import ENTRY_POINT_GROUP, PluginWarning, register_method, registered, unregister_method
from .engine.registry import CHECKS, FEATURES, MethodCard, Theorem
from .engine.runloop import Budget, IterationPlan, Memo, memoized
from .plans.common.margin import MarginPlan, MarginState

__all__ = ["Backend", "Boolean", "Budget", "CHECKS", "ENTRY_POINT_GROUP", "FEATURES", "InstanceOf", "Interval",
           "IsCallable", "IterationPlan", "ListOf", "MarginPlan", "MarginState", "Memo", "MethodCard", "OBLIGATIONS",
           "Options", "PlanContractError", "PlanError", "PluginWarning", "ProblemError", "STATUSES", "Solution",
           "Theorem", "backend_of", "check_obligation", "check_plan", "memoized", "parse_warm_start",
           "register_method", "registered", "unregister_method"]
