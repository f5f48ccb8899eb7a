"""Ji, Srebro & Telgarsky Figs. 2 and 3 (experiments/jst_fig2.py, experiments/jst_fig3.py) at their reduced size:
every claim a script states holds, each checked here from the script's own numbers (the ``--quick`` run also
asserts them), and the full-size runs behind ``slow``."""

import numpy as np

from experiment_helpers import QUICK_AND_FULL, load_experiment as experiment, run_experiment


def assert_claims_in_docstring(exp):
    """The docstring (what the documentation gallery shows) lists exactly the claims the script checks."""
    doc = " ".join(exp.__doc__.split())
    for key, text in exp.CLAIMS.items():
        assert f"``{key}``: {' '.join(text.split())}" in doc, key


@QUICK_AND_FULL
def test_fig2_exp_loss_methods_do_well_on_non_separable_mnist_and_the_batch_perceptron_suffers(quick, tmp_path,
                                                                                              capsys):
    exp, out = run_experiment("jst_fig2", quick, tmp_path)
    printed = capsys.readouterr().out
    assert all(text in printed for text in exp.CLAIMS.values())     # every claim is stated with its section
    assert_claims_in_docstring(exp)
    assert set(out["claims"]) == set(exp.CLAIMS) and all(out["claims"].values())
    ref = out["reference"]
    assert ref.status == "infeasible" and ref.certificate["hull_distance_relative"] < 1e-8
    curves, T = out["curves"], out["T"]
    final = {label: exp.at(c, "test_error", T) for label, c in curves.items()}
    perceptron = curves[exp.PERCEPTRON]["test_error"]
    assert perceptron[len(perceptron) // 2:].mean() >= 2 * max(final[m] for m in exp.EXP_LOSS)
    assert all(c["margin"][-1] <= 0 for c in curves.values())   # nothing separates non-separable data


@QUICK_AND_FULL
def test_fig3_momentum_beats_the_batch_perceptron_which_beats_theorem_4_1_parameters(quick, tmp_path, capsys):
    exp, out = run_experiment("jst_fig3", quick, tmp_path)
    printed = capsys.readouterr().out
    assert all(text in printed for text in exp.CLAIMS.values())
    assert_claims_in_docstring(exp)
    assert set(out["claims"]) == set(exp.CLAIMS) and all(out["claims"].values())
    med = {label: float(np.median(v)) for label, v in out["finals"].items()}
    assert med[exp.THEORY] < med[exp.PERCEPTRON] < med[exp.MOMENTUM] <= out["margin_upper"] * (1 + 1e-9)


def test_fig3_ntk_gram_is_the_tangent_kernel_of_the_width_128_network():
    """``ntk_gram`` equals the normalised inner products of the explicit gradients ``∇_{a,W} f(x)``."""
    exp = experiment("jst_fig3")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 5))
    G = exp.ntk_gram(X, width=exp.WIDTH, seed=3)
    r = np.random.default_rng(3)
    W = r.standard_normal((5, exp.WIDTH)) / np.sqrt(5)
    a = r.choice([-1.0, 1.0], size=exp.WIDTH) / np.sqrt(exp.WIDTH)
    pre = X @ W
    grad_W = ((pre > 0) * a)[:, :, None] * X[:, None, :]          # ∇_{w_j} f(x) = a_j 1[w_jᵀx > 0] x
    feats = np.hstack([np.maximum(pre, 0), grad_W.reshape(7, -1)])  # with ∇_a f(x) = relu(Wᵀx)
    feats /= np.linalg.norm(feats, axis=1, keepdims=True)
    np.testing.assert_allclose(G, feats @ feats.T, rtol=1e-12, atol=1e-14)
