"""``benchmarks/screening_timing.py reach``: how far the gap ball can reach on an instance (issue 23's
``screening-few-sv`` row), checked on a small instance of the same kind."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmark lives in the repository, not the package
from benchmarks.screening_timing import reach, separated  # noqa: E402


def test_the_ball_at_the_optimum_proves_more_as_the_gap_shrinks_and_only_what_is_true():
    X, y = separated(3000, 10, seed=1)
    out = reach(X, y, C=1.0, tol=1e-6)
    ball = out["ball"]
    gaps = [row["relative_gap"] for row in ball]
    assert gaps == sorted(gaps, reverse=True)
    removable = [row["removable"] for row in ball]
    fixable = [row["fixable"] for row in ball]
    # a smaller radius proves at least as much; nothing is both removed and fixed
    assert all(a <= b for a, b in zip(removable, removable[1:]))
    assert all(a <= b for a, b in zip(fixable, fixable[1:]))
    assert all(r + f <= 1.0 for r, f in zip(removable, fixable))
    # at the loosest gap the ball proves nothing here, at the tightest it removes most non-support vectors
    assert removable[0] == 0.0 and fixable[0] == 0.0
    assert removable[-1] > 0.5 * (1.0 - out["support_vectors"])
    # a removed sample is never a support vector, a fixed one always is (a*_i = C_i)
    assert removable[-1] <= 1.0 - out["support_vectors"] + 1e-12
    assert fixable[-1] <= out["support_vectors"] + 1e-12
    assert out["run_status"] == "optimal"
    first = out["first_screen_fraction"]
    assert first is None or 0.0 < first <= 1.0
    assert out["oracle_seconds"] > 0.0
