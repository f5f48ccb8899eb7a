"""What the screening tests of ``dual-cd`` (tests/test_screening.py) and ``dual-cd-bias`` (tests/test_screening_bias.py)
share: the random instances of the kinds issue 23 lists (their degenerate rows also drawn by the property tests of
test_certified_property.py and test_ipm_property.py), a plan stepped to a state with its screened sets, and the
screened samples that contradict the KKT conditions of the CVXPY optimum."""
import numpy as np
import scipy.sparse as sp


def duplicate_and_zero_rows(rng, X, y, k_max: int = 4) -> None:
    """The degenerate rows of the property tests' instances (these, tests/test_certified_property.py,
    tests/test_ipm_property.py), in place and always drawn in this order from ``rng``: with probability 0.3 the last
    ``k`` rows (``1 <= k < k_max``) repeat the first ``k``, half the time with the opposite labels; with probability
    0.2 a row other than the first two (which carry both labels) is zero."""
    if rng.random() < 0.3:
        k = int(rng.integers(1, k_max))
        X[-k:] = X[:k]
        if rng.random() < 0.5:
            y[-k:] = -y[:k]
    if rng.random() < 0.2:
        X[int(rng.integers(2, X.shape[0]))] = 0.0


def instance(seed: int, off_centre: bool = False, zero_weight_from: int = 0):
    """A random instance of the kinds the issue lists; ``(X as given, X dense, y, weights, C)``. ``off_centre``: the
    rows shifted so that the offset matters; ``zero_weight_from``: the first row a weight of 0 may fall on."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(6, 60)), int(rng.integers(1, 6))
    X = rng.standard_normal((n, d))
    if off_centre:
        X = X + rng.uniform(-1, 1, size=d)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    duplicate_and_zero_rows(rng, X, y)
    if rng.random() < 0.2:                                  # rows on lattice points: margins tie at exactly 1
        X = np.round(2 * X) / 2
    X *= 10.0 ** rng.uniform(-3, 3)
    if rng.random() < 0.3:
        X = X * (10.0 ** rng.uniform(-2, 2, size=d))        # raw, unscaled columns
    weights = rng.uniform(0.1, 3.0, size=n) if rng.random() < 0.3 else None
    if weights is not None and rng.random() < 0.3:
        weights[int(rng.integers(zero_weight_from, n))] = 0.0   # a weight of 0: C_i = 0, never visited
    Xs = sp.csr_matrix(X) if rng.random() < 0.25 else X
    C = float(10.0 ** rng.uniform(-2, 2))
    # C·max||x_i||² sets the conditioning of the dual: rescale C so that every instance converges in the budget
    C = min(C, 1e3 / max(float(np.max(np.sum(X * X, axis=1))), 1e-300))
    return Xs, X, y, weights, C


def screened(problem, method: str, steps: int, seed: int, tol: float, **options):
    """The last state of ``steps`` iterations of ``method`` and its ``(removed, fixed)`` sets."""
    plan = problem.compile(method, **options)
    state = None
    for state in plan.iterate(steps, seed=seed, tol=tol):
        pass
    return plan, state, plan.screened_sets(state)


def kkt_violations(X, y, ref, removed, fixed) -> tuple[np.ndarray, np.ndarray]:
    """Screened samples whose reference margin contradicts the screen (beyond the reference's own accuracy)."""
    m = y * (X @ ref.w + ref.b)
    slack = 1e-6 * (1.0 + np.linalg.norm(X, axis=1) * np.linalg.norm(ref.w) + abs(ref.b))
    return removed[m[removed] < 1 - slack[removed]], fixed[m[fixed] > 1 + slack[fixed]]


def screened_at_warm_start(problem, method: str, tol: float):
    """``method`` started from its own answer at ``tol``: the state at init and its ``(removed, fixed)`` sets."""
    res = problem.solve(method, tol=tol, seed=0)
    plan = problem.compile(method)
    state = next(plan.iterate(0, seed=0, warm_start=res))
    return (state, *plan.screened_sets(state))


def screened_instance(seed: int, method: str, bias: bool, max_steps: int, **kinds):
    """The property tests' case: :func:`instance` (``kinds``: its options) as ``SoftMarginSVM(bias=bias)``, stepped
    ``1 <= steps < max_steps`` iterations of ``method`` at a random ``tol`` (both drawn from ``seed + 1``). None where
    the CVXPY reference is not ``optimal`` (no exact answer to compare with); otherwise ``(problem, y, weights, plan,
    state, (removed, fixed), (bad_removed, bad_fixed))``, the last the screened samples that contradict the
    reference's KKT conditions."""
    import marginkit as mk
    Xs, X, y, weights, C = instance(seed, **kinds)
    problem = mk.SoftMarginSVM(Xs, y, C=C, bias=bias, sample_weight=weights)
    ref = problem.reference()
    if ref.status != "optimal":
        return None
    rng = np.random.default_rng(seed + 1)
    tol = float(10.0 ** rng.uniform(-10, -1))
    plan, state, sets = screened(problem, method, int(rng.integers(1, max_steps)), seed, tol)
    return problem, y, weights, plan, state, sets, kkt_violations(X, y, ref, *sets)
