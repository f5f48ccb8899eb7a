"""The reduction graph: which methods are listed, and why the others are refused."""
import pytest

import marginkit as mk
from marginkit.engine.graph import GRAPH

JST = {"dual-accelerated", "dual-accelerated-stochastic", "gd", "normalized-gd", "batch-perceptron"}


def test_max_margin_lists_reference_first_and_the_jst_family(small_separable):
    names = mk.methods(mk.MaxMargin(*small_separable))
    assert names[0] == "cvxpy"
    assert JST <= set(names)


def test_methods_that_cannot_handle_a_bias_are_not_listed(small_separable):
    names = mk.methods(mk.MaxMargin(*small_separable, bias=True))
    assert not (JST & set(names))


def test_asking_for_an_unsupported_method_names_method_and_reason(small_separable):
    with pytest.raises(mk.ProblemError, match=r"'dual-accelerated'.*bias"):
        mk.MaxMargin(*small_separable, bias=True).solve("dual-accelerated")
    with pytest.raises(mk.ProblemError, match=r"'normalized-gd'.*kernel"):
        mk.MaxMargin(*small_separable, kernel="rbf").solve("normalized-gd")


def test_unknown_method_lists_the_available_ones(small_separable):
    with pytest.raises(mk.ProblemError, match="available: cvxpy"):
        mk.MaxMargin(*small_separable).solve("newton")


def test_every_problem_form_has_a_reference_node():
    for form in ("MaxMargin", "MinNormFeasibility", "SoftMarginSVM"):
        assert "cvxpy" in GRAPH.nodes[form]["methods"]


def test_method_table_in_the_docs_is_current():
    from pathlib import Path
    from marginkit.engine.graph import method_table
    page = Path(__file__).resolve().parents[1] / "docs" / "methods.md"   # the README links to it
    assert method_table() in page.read_text(encoding="utf-8"), (
        "regenerate the table of docs/methods.md: python docs/update_readme.py")
