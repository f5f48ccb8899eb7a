"""The claims every experiment script checks, as it prints them (not an experiment: the gallery skips ``_`` names).

A script's ``CLAIMS`` holds the paper's claims it checks, one row each: ``(id, claim, where in the paper,
expectation)``. The expectation is "holds" (reproduced and asserted on the ``--quick`` run), "full size only: <why>"
(asserted on the full run, a slow test) or "not reproduced: <why>" (the paper's claim, stated and reported FAIL on
purpose). Its ``check_claims(out)`` gives each id its verdict, which ``main`` prints with :func:`report`. The JST
scripts state theirs as ``{id: claim}``, every one asserted on the ``--quick`` run (:func:`state`,
:func:`assert_all_hold`)."""


def claims_table(claims, verdicts: dict, key_width: int, where_width: int) -> str:
    """``claims`` (``(key, text, where, expectation)`` rows) with their verdicts, one line each plus the claim's text
    (a FAIL of a "not reproduced" claim is the expected, honest verdict)."""
    lines = [f"{'claim':{key_width}s} {'paper':{where_width}s} verdict  expectation"]
    for key, text, where, expect in claims:
        lines += [f"{key:{key_width}s} {where:{where_width}s} {'PASS' if verdicts[key] else 'FAIL':7s}  {expect}",
                  f"    {text}"]
    return "\n".join(lines)


def table_for(claims, key_width: int, where_width: int):
    """A script's ``claims_table(verdicts)``: its ``claims`` with their verdicts (:func:`claims_table`), in columns of
    these widths."""
    def table(verdicts: dict) -> str:
        return claims_table(claims, verdicts, key_width, where_width)
    return table


def report(out: dict, check, table) -> dict:
    """``out["claims"] = check(out)``, printed after a blank line as ``table`` shows them: the verdicts."""
    out["claims"] = check(out)
    print("\n" + table(out["claims"]))
    return out["claims"]


def state(out: dict, check, claims: dict) -> dict:
    """``out["claims"] = check(out)``, printed one line each: ``[holds]`` or ``[FAILS]`` and the claim's text
    (``claims``: ``{key: text}``); the verdicts."""
    out["claims"] = check(out)
    for key, ok in out["claims"].items():
        print(f"[{'holds' if ok else 'FAILS'}] {claims[key]}")
    return out["claims"]


def assert_all_hold(out: dict) -> dict:
    """``out``, once every verdict of ``out["claims"]`` holds (else ``AssertionError``): the ``--quick`` runs that
    assert their claims."""
    failed = [key for key, ok in out["claims"].items() if not ok]
    assert not failed, f"claims not reproduced: {failed}"
    return out
