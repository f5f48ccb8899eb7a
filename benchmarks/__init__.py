"""marginkit's performance suite, benchopt's shape at a small scale (run it with ``marginkit bench`` from a clone).

A folder of small files, each with one job:

* :mod:`~benchmarks.datasets` -- the instances of every row, at full size and at ``--quick`` size (:class:`Sizes`);
* :mod:`~benchmarks.targets` -- the targets as data: per row the target ratio, the yardstick, the caps and the
  competitors (marginkit methods chosen by registry tag);
* :mod:`~benchmarks.objective` -- the row record, the judging rule and the yardsticks (how accuracy is measured);
* :mod:`~benchmarks.solvers` -- the competitors: marginkit methods (``problem.solve``), CVXPY solvers in capped
  child processes, liblinear (scikit-learn's ``LinearSVC``);
* :mod:`~benchmarks.measure` -- timing helpers, per-iteration cost of a plan, memory peaks;
* :mod:`~benchmarks.rows_race` and :mod:`~benchmarks.rows_cost` -- each row assembled from the pieces above;
* :mod:`~benchmarks.runner` -- the suite: row groups, BLAS thread limits, partial runs (``--only``);
* :mod:`~benchmarks.report` -- the machine description, ``results.json`` and the Markdown table of ``README.md``.

The harness uses marginkit's public API only (the problem classes, ``solve``/``compile``/``reference``,
``marginkit.methods``), the registry's ``cards``, the plan protocol with ``record_schedule``/``Budget`` and
``marginkit.datasets``. It is not part of the installed package.
"""
