"""Lab 7: bring your own solver -- Gilbert's algorithm written as a marginkit plan, checked, registered, run on NumPy
and dask, and cross-validated against the certified optimum and the papers' methods."""
from _cells import code, md

SETUP = code("""
    import dask.array as da
    import matplotlib.pyplot as plt
    import numpy as np

    import marginkit as mk
    from marginkit import datasets
    from marginkit.testing import PlanContractError, check_plan

    plt.rcParams.update({"figure.dpi": 90, "axes.grid": True, "grid.alpha": 0.3})
    np.set_printoptions(precision=4, suppress=True)
""")

# the whole method: what a researcher writes (the plan class and its card), under 80 lines
PLAN = code('''
    from dataclasses import dataclass, field
    from typing import ClassVar

    from marginkit.engine.plugins import Boolean, IterationPlan, MethodCard, Solution, parse_warm_start


    @dataclass
    class GilbertState:
        t: int
        u: object      # u = Zᵀa, a point of the convex hull of the rows z_i = y_i x_i (a d-vector)
        s: object      # s = Z u, the margins y_i x_iᵀu of u (an n-vector, where X lives)
        i: int         # the Frank–Wolfe vertex: the row with the smallest margin under u
        gap: float     # the Frank–Wolfe gap ||u||² − min_i z_iᵀu

    class Gilbert(IterationPlan):
        """Gilbert (1966): Frank–Wolfe with exact line search on min over the simplex of ½||Zᵀa||²."""
        name, default_max_iter, default_tol = "gilbert", 20_000, 1e-2

        @dataclass(frozen=True)
        class Config:
            line_search: bool = field(default=True, metadata={   # its meaning, as mk.describe("gilbert") shows it
                "doc": "True: Gilbert's exact step; False: Frank–Wolfe's 2/(t+2)"})
            constraints: ClassVar[dict] = {"line_search": [Boolean()]}   # the accepted values, checked at compile

        def setup(self):                          # constants of the data: the only place a plan sets attributes
            self.bk, self.X, self.y, self.R = self.form.backend, self.form.X, self.form.y, self.form.max_row_norm()

        def margins(self, u):                     # Z u = y ∘ (X u), where X lives
            return self.bk.persist(self.y * self.bk.matvec(self.X, u))

        def row(self, i):                         # z_i = y_i x_i
            return self.bk.float(self.y[i]) * self.bk.row(self.X, i)

        def at(self, t, u):                       # the state of the hull point u
            s = self.margins(u)
            i = int(self.bk.float(self.bk.xp.argmin(s)))
            return GilbertState(t, u, s, i, self.bk.norm(u) ** 2 - self.bk.float(s[i]))

        def init(self, rng, warm_start, budget):
            w = parse_warm_start(warm_start, self.X.shape[1])
            if w is None:                         # a = 1/n: the mean of the rows
                return self.at(0, self.bk.rmatvec(self.X, self.y / self.X.shape[0]))
            hardest = int(self.bk.float(self.bk.xp.argmin(self.margins(self.bk.asarray_d(w)))))
            return self.at(0, self.row(hardest))  # a = e_i: the row the warm start finds hardest

        def step(self, st):
            direction = self.row(st.i) - st.u
            lam = (min(1.0, max(st.gap, 0.0) / max(self.bk.norm(direction) ** 2, 1e-300)) if self.line_search
                   else 2.0 / (st.t + 2.0))       # exact: the argmin over [0, 1] of ||u + λ(z_i − u)||²
            return self.at(st.t + 1, st.u + lam * direction)

        def bounds(self, st):                     # margin(u) <= γ* <= ||u||, for every a in the simplex
            upper = self.bk.norm(st.u)
            return ((upper ** 2 - st.gap) / upper if upper > 0 else 0.0), upper

        def measure(self, st):
            lower, upper = self.bounds(st)
            return {"margin": lower, "margin_upper": upper, "gap_bound": upper - lower, "duality_gap": st.gap}

        def stop(self, st, budget):
            lower, upper = self.bounds(st)
            if upper > 0 and upper - lower <= budget.tol * upper:
                return "optimal"                  # the certified relative margin gap is at most tol
            return "infeasible_inaccurate" if upper <= budget.tol * self.R else None   # γ* <= ||u|| <= tol·R

        def snapshot(self, st):
            return np.array(self.bk.host(st.u), dtype=float)

        def solution(self, st, status):
            lower, upper = self.bounds(st)
            return Solution(w=st.u, status=status, certificate={
                "margin_lower": lower, "margin_upper": upper, "gap_bound": upper - lower, "duality_gap": st.gap,
                "relative_gap": (upper - lower) / upper if upper > 0 else np.inf})

    CARD = MethodCard("gilbert", "MaxMargin", Gilbert, arrays=("numpy", "array-api", "dask"),
                      paper="Gilbert (1966); Frank & Wolfe (1956)", algorithm="Frank–Wolfe, exact line search",
                      converges_to="max-margin direction", rate="margin gap O(R²/(γ* t)) (Jaggi 2013, Thms 1-2)",
                      rate_law=("power", 1.0), tolerance=0.02,
                      requires=(("no_kernel", "Gilbert works on the primal point u = Zᵀa (no kernel)"),
                                ("no_bias", "the nearest-point dual of the homogeneous hard margin (bias=False)")))
''')

DATA = code("""
    X, y = datasets.sklearn_digits_pair(3, 5)   # 8x8 digits: "3" -> +1, "5" -> -1; rows scaled so max ||x_i|| = 1
    P = mk.MaxMargin(X, y)                       # min ½||w||²  s.t.  y_i x_iᵀw >= 1   (no bias)
    assert X.shape == (365, 64) and np.linalg.norm(X, axis=1).max() == 1.0   # quoted in the text above
    passed = check_plan(Gilbert, P)
    print(f"{len(passed)} obligations kept:", ", ".join(passed))
    assert passed == list(mk.testing.OBLIGATIONS)   # every obligation of the contract, none skipped
""")

CELLS = [
    md(r"""
    # Lab 7 — Bring your own solver

    *Course on margins, implicit bias and first-order methods.* marginkit exists to validate solvers against exact
    optima. This lab does it for a solver **marginkit does not have**: you write it, in well under 80 lines, as an
    *iteration plan*; marginkit's contract suite checks it; one call registers it; from then on it runs on NumPy and
    on dask arrays, in `solve`, `compile`, `cross_validate`, `marginkit compare` and `MarginClassifier`, beside the
    methods of the papers, and is measured against the certified CVXPY optimum.

    **Learning goals.** After this lab you can

    1. write the hard-margin problem as a nearest-point problem over the simplex, and read off a **certified
       interval** for the max margin from any point of the simplex;
    2. recognise the Frank–Wolfe gap as that certificate, and Gilbert's algorithm as Frank–Wolfe with exact line
       search;
    3. write a method as a marginkit plan (the hooks `setup`, `init`, `step`, `measure`, `stop`, `snapshot`,
       `solution`), against the problem's *backend* so that the same code runs where the data live;
    4. run `marginkit.testing.check_plan` and read its failures;
    5. register the method, run it on a dask array with no further code, cross-validate it against the certified
       optimum and the papers' methods, and plot its convergence beside theirs.

    **Prerequisites.** Lab 3 (the dual of the max margin over the simplex) helps; Frank–Wolfe is introduced here.

    **Runtime.** About 15 seconds on a laptop. Data: scikit-learn's bundled 8×8 digits (no download).
    """),
    md(r"""
    ## 1. The method: the nearest point of a convex hull

    With $z_i = y_i x_i$ the rows of $Z = \operatorname{diag}(y) X$, the homogeneous hard margin is
    $$\gamma^* = \max_{\|w\| \le 1}\ \min_i z_i^\top w \;=\; \min_{a \in \Delta_n} \|Z^\top a\| ,$$
    the distance from the origin to the convex hull of the $z_i$ (Ji, Srebro & Telgarsky 2021, §2, write the same
    duality with $-z_i$; see Lab 3). Weak duality is one line: for $a \in \Delta_n$ and $\|w\| \le 1$,
    $\min_i z_i^\top w \le \sum_i a_i z_i^\top w = (Z^\top a)^\top w \le \|Z^\top a\|$. So **every** point
    $u = Z^\top a$ of the hull gives a certified interval for the max margin:
    $$\gamma(u) = \min_i \frac{z_i^\top u}{\|u\|} \;\le\; \gamma^* \;\le\; \|u\| ,$$
    the margin that the classifier $w = u$ achieves, and the bound that no classifier beats.

    **Frank–Wolfe** (Frank & Wolfe 1956) on $f(a) = \tfrac12\|Z^\top a\|^2$ over the simplex: the gradient is
    $\nabla f(a) = Z u = s$ (the margins of $u$), the linear minimisation over the simplex picks the vertex $e_i$ with
    $i = \arg\min_i s_i$ (the example $u$ classifies worst), and the **Frank–Wolfe gap**
    $$g = \nabla f(a)^\top (a - e_i) = \|u\|^2 - \min_i z_i^\top u \;\ge\; f(a) - f^*$$
    bounds the suboptimality (Jaggi 2013, "Revisiting Frank–Wolfe", §2). Here it is exactly the width of the
    margin interval: $\|u\| - \gamma(u) = g/\|u\|$, so the certified **relative** margin gap is $g/\|u\|^2$, the
    number marginkit's status `optimal` is about (scale-free: it is the same for $cX$). **Gilbert's algorithm**
    (Gilbert 1966, "An iterative procedure for computing the minimum of a quadratic form on a convex set") moves
    $u$ towards $z_i$ with the exact line search $\lambda = \min(1, g/\|z_i - u\|^2)$; Frank–Wolfe's classic step
    is $\lambda = 2/(t+2)$. Both converge as $f(a_t) - f^* = O(R^2/t)$ (Jaggi 2013, Theorem 1), with $R = \max\|x_i\|$.
    """),
    md(r"""
    ## 2. The plan

    A marginkit method is a class derived from `IterationPlan` (docs/ARCHITECTURE.md, "Adding a method"). It owns
    the mathematics and nothing else: marginkit's run loop owns the budget (`max_iter`, `time_limit`, callbacks),
    the trace, the timer and the log. The hooks:

    | hook | what it does here |
    |---|---|
    | `Config` | the parameters: a frozen dataclass, `metadata={"doc": ...}` their meaning, `constraints` their values |
    | `setup()` | constants of the data, once, at compile time (after it the plan is frozen) |
    | `init(rng, warm_start, budget)` | the first state: the mean of the rows (or the row a warm start finds hardest) |
    | `step(state)` | one Gilbert step; returns a **new** state (a state is never modified in place) |
    | `measure(state)` | the trace's columns (names of the trace schema: `margin`, `margin_upper`, ...) |
    | `stop(state, budget)` | `"optimal"` only when the certificate proves `budget.tol` |
    | `snapshot(state)`, `solution(state, status)` | the iterate recorded in the trace; the answer and its certificate |

    Every product with the data goes through the problem's **backend** `bk`: `bk.matvec(X, u)` ($Xu$, an
    n-vector where $X$ lives), `bk.rmatvec(X, q)` ($X^\top q$, a d-vector), `bk.row(X, i)`, `bk.float` (a scalar to
    Python: the one place a device or a cluster is waited for), `bk.norm` and the namespace `bk.xp`. On NumPy these
    are plain NumPy calls; on a dask array the n-vectors stay chunked on the workers and only d-vectors and
    scalars come back (the pattern of dask-glm). That is what lets the same class run on both in §4.
    """),
    SETUP,
    PLAN,
    md(r"""
    ## 3. The contract: `check_plan`

    `marginkit.testing.check_plan(PlanClass, problem)` holds the plan to the obligations every plan of marginkit is
    held to (`tests/test_contract.py`), in the spirit of scikit-learn's `check_estimator`: frozen, declared
    parameters; bad and unknown options rejected at compile time; a plan that nothing writes to; `iterate()` and
    `run()` going through the same iterates; warm starts; no NaN; `optimal` only when the CVXPY reference confirms
    it; and **observation never changes the answer** (`trace=None`, `1` and `"geometric"` give the same run, bit for
    bit). It registers the class under a temporary name for the check and removes it afterwards.

    We use digits **3 (label +1) versus 5 (label −1)**: 365 images of 64 pixels, rows scaled so that
    $\max_i\|x_i\| = 1$, separable through the origin.
    """),
    DATA,
    md(r"""
    A failure names the obligation, says what was observed and why the obligation matters. Here is a plausible
    mistake: a stop rule on the **absolute** Frank–Wolfe gap. On this data $\|u\|^2 \approx 3\cdot10^{-3}$, so
    $g \le 10^{-3}$ holds long before the margin is known to three digits.
    """),
    code("""
    class AbsoluteGapGilbert(Gilbert):
        def stop(self, st, budget):
            return "optimal" if st.gap <= budget.tol else None   # not scale-free: the gap is in units of ||x||²

    try:
        check_plan(AbsoluteGapGilbert, P)
    except PlanContractError as err:
        print(err)
        failure = err
    assert failure.obligation == "optimal-is-certified"
    """),
    md(r"""
    ## 4. Register it, and run it on NumPy and on dask

    `mk.register_method(CARD)` adds the card: the method now appears in `mk.methods(problem)` and every public call
    accepts it. A card that exists already, or that declares nothing it supports (no array kind, an unknown
    requirement), is a `ProblemError`. A package does the same through its `pyproject.toml` (§6).

    The certificate is checked against the CVXPY reference: the exact $\gamma^*$ lies in Gilbert's interval.
    """),
    code("""
    mk.register_method(CARD)
    print(mk.methods(P))
    res = P.solve("gilbert")                      # default tol 1e-2: the certified relative margin gap
    ref = P.reference()
    cert = res.certificate
    print(res)
    print(f"certified: {cert['margin_lower']:.6f} <= γ* <= {cert['margin_upper']:.6f}   "
          f"(relative gap {cert['relative_gap']:.2e});   CVXPY: γ* = {ref.margin:.6f}")
    assert "gilbert" in mk.methods(P) and res.status == "optimal" and cert["relative_gap"] <= 1e-2
    assert cert["margin_lower"] <= ref.margin * (1 + 1e-9) and ref.margin <= cert["margin_upper"] * (1 + 1e-9)
    """),
    md(r"""
    The same problem with $X$ as a row-chunked **dask array**, and no further code: the plan's products go through
    the dask backend, $X$ is never gathered to the driver, and only $d$-vectors and scalars come back. The iterates
    are those of NumPy up to rounding (dask sums the chunks' products in another order).
    """),
    code("""
    Xd = da.from_array(X, chunks=(100, 64))       # 4 row chunks
    Pd = mk.MaxMargin(Xd, y)
    on_dask = Pd.solve("gilbert", max_iter=100)
    on_numpy = P.solve("gilbert", max_iter=100)
    print(Pd.backend.describe(), "->", on_dask)
    err = np.abs(np.asarray(on_dask.w) - on_numpy.w).max() / np.abs(on_numpy.w).max()
    print(f"largest relative difference of the iterates after 100 steps: {err:.1e}")
    assert on_dask.iterations == on_numpy.iterations == 100 and err < 1e-10
    """),
    md(r"""
    ## 5. Cross-validation against the certified optimum and the papers' methods

    `mk.cross_validate(P)` runs every method listed for the problem, now Gilbert's too, each with its documented
    budget, beside the CVXPY reference: the JST dual-acceleration family (Ji, Srebro & Telgarsky), diagonal descent
    (Apidopoulos, Poggio, Rosasco & Villa), the homotopic subgradient method (Molitor, Needell & Ward) and
    Raj–Bach's Dykstra (through the reduction to a min-norm feasibility problem). The table reports the gaps to the
    exact optimum, measured by marginkit, not by the plans.
    """),
    code("""
    rep = mk.cross_validate(P, seed=0)
    print(rep.table())
    row = next(r for r in rep.rows if r["method"] == "gilbert")
    g = rep.results["gilbert"]
    assert row["margin_gap"] <= g.certificate["relative_gap"]   # the true gap is inside the certified one
    assert row["agrees"]
    """),
    md(r"""
    The fifth paper, Hough & Vavasis, solves the soft-margin SVM with FISTA. The soft margin without bias has the
    hard-margin solution as soon as $C$ exceeds the largest multiplier $a^*_i$ of the hard margin (the box
    $0 \le a \le C$ then contains the hard-margin dual optimum), so their method answers the same question here,
    and `mk.certify` measures its $w$ against the exact max margin.
    """),
    code("""
    C = 2 * ref.dual["a"].max()
    hv = mk.SoftMarginSVM(X, y, C=C, bias=False).solve("fista", tol=1e-6, max_iter=5000)
    hv_check = mk.certify(P, hv.w, tol=1e-3)
    print(f"C = {C:.1f}: fista {hv.status} after {hv.iterations} iterations; margin gap to γ* "
          f"{hv_check.certificate['margin_gap']:.1e} ({hv_check.status} at tol 1e-3)")
    assert hv_check.certificate["margin_gap"] < 1e-3
    """),
    md(r"""
    ## 6. Convergence beside the papers' methods

    `Report.plot` draws the relative margin gap to the exact optimum of every method against the iteration. The
    dashed line is Gilbert's own certified relative gap, $g_t/\|u_t\|^2$, which needs no reference: once $u_t$
    separates the data ($\gamma(u_t) > 0$) it stays above the true gap, as a certificate must (for
    $0 < \gamma(u) \le \gamma^* \le \|u\|$, $1 - \gamma(u)/\gamma^* \le 1 - \gamma(u)/\|u\|$).
    """),
    code("""
    fig, ax = plt.subplots(figsize=(8.4, 4.8))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)   # twelve methods: more colours than the default ten
    rep.plot(ax=ax, title="digits 3 vs 5: relative margin gap to the certified optimum")
    tr = g.trace
    ax.loglog(tr["iteration"][1:], (tr["gap_bound"] / tr["margin_upper"])[1:], "k--", lw=1,
              label="gilbert: certified bound")
    ax.legend(fontsize=7, ncol=2)
    plt.show()
    separating = tr["margin"] > 0               # once u separates the data (the certified margin is positive)
    assert separating[-1] and np.all((tr["margin_gap"] <= tr["gap_bound"] / tr["margin_upper"] + 1e-12)[separating])
    assert g.certificate["relative_gap"] <= 5 * row["margin_gap"]   # quoted below: within a small factor of the truth
    """),
    md(r"""
    Gilbert's gap falls like $1/t$, with the zig-zag Frank–Wolfe is known for near the optimum. Its steps are
    cheaper than those of dual acceleration (one product with $X$ and one row per step, against two products), but
    the accelerated and the linearly convergent methods of the papers overtake it by orders of magnitude. Its own
    certificate stays within a small factor of the true gap, so a user without a reference knows where it stands.

    **As a package.** To ship the method, put the plan and the card in a module and declare the entry point in the
    package's `pyproject.toml`; marginkit reads the group the first time methods are listed, so the method is then
    available in every session and in `marginkit compare` (a broken entry point is skipped with a warning that
    names it):

    ```toml
    [project.entry-points."marginkit.methods"]
    gilbert = "my_package.gilbert:CARD"
    ```

    Here we remove the registration, which leaves marginkit as we found it.
    """),
    code("""
    mk.unregister_method("gilbert")
    assert "gilbert" not in mk.methods(P)
    """),
    md(r"""
    ## Exercises

    1. **Frank–Wolfe's step.** Solve with `line_search=False` (the step $2/(t+2)$) and compare the certified gap
       after 2,000 iterations with Gilbert's exact line search.
    2. **Another array library.** Run the same plan on `array_api_strict` arrays (or PyTorch tensors) without
       changing it, and compare with the NumPy iterates.
    3. **A contract you break on purpose.** Write a subclass whose `measure` caches the gap in the state, and read
       what `check_plan` says.
    """),
]

SOLUTIONS = [
    md(r"""
    # Lab 7 — Solutions

    The plan of the lab, then one cell per exercise.
    """),
    code("""
    import numpy as np

    import marginkit as mk
    from marginkit import datasets
    from marginkit.testing import PlanContractError, check_plan
    """),
    PLAN,
    code("""
    X, y = datasets.sklearn_digits_pair(3, 5)
    P = mk.MaxMargin(X, y)
    mk.register_method(CARD)
    """),
    md(r"""
    ## Exercise 1 — Frank–Wolfe's step

    The step $2/(t+2)$ ignores the geometry of the hull; the exact line search never does worse on the objective
    in one step. Both converge as $O(1/t)$, and after 2,000 steps the exact line search is ahead, by less than
    one might expect: the zig-zag between the support vectors slows both.
    """),
    code("""
    exact = P.solve("gilbert", max_iter=2000, tol=0.0)
    classic = P.solve("gilbert", max_iter=2000, tol=0.0, line_search=False)
    for name, r in (("exact line search", exact), ("2/(t+2)", classic)):
        print(f"{name:>18}: certified relative gap {r.certificate['relative_gap']:.2e}")
    assert exact.certificate["relative_gap"] < classic.certificate["relative_gap"]
    """),
    md(r"""
    ## Exercise 2 — another array library

    `array_api_strict` has only the array API standard, so it proves that the plan makes no NumPy-only call; the
    iterates are NumPy's up to rounding.
    """),
    code("""
    import array_api_strict as xps

    Ps = mk.MaxMargin(xps.asarray(X), xps.asarray(y))
    strict = Ps.solve("gilbert", max_iter=200)
    numpy = P.solve("gilbert", max_iter=200)
    err = np.abs(np.asarray(strict.w) - numpy.w).max() / np.abs(numpy.w).max()
    print(type(strict.w).__module__, f"relative difference {err:.1e}")
    assert strict.iterations == 200 and err < 1e-10
    """),
    md(r"""
    ## Exercise 3 — a contract broken on purpose

    A `measure` that stores the relative gap in the state's `gap` field (a plausible shortcut: the trace wants the
    relative value) makes the run depend on what the trace records, because `step` reads `gap` for its line
    search: `iterate()` (which measures nothing) and `run(trace=1)` (which measures every state) then go through
    different iterates, and `check_plan` stops at that obligation. Only `step` makes a new state; `measure` and
    `stop` read it.
    """),
    code("""
    class CachingGilbert(Gilbert):
        def measure(self, st):
            metrics = super().measure(st)
            st.gap = st.gap / self.bk.norm(st.u) ** 2   # "cached" as the relative gap: step reads it next
            return metrics

    try:
        check_plan(CachingGilbert, P)
    except PlanContractError as err:
        print(err)
        broken = err
    assert broken.obligation == "iterate-equals-run" and "iterate 1" in str(broken)
    mk.unregister_method("gilbert")
    """),
]
