"""The claims table every experiment script prints (not an experiment: the gallery skips ``_`` names)."""


def claims_table(claims, verdicts: dict, key_width: int, where_width: int) -> str:
    """``claims`` (``(key, text, where, expectation)`` rows) with their verdicts, one line each plus the claim's text
    (a FAIL of a "not reproduced" claim is the expected, honest verdict)."""
    lines = [f"{'claim':{key_width}s} {'paper':{where_width}s} verdict  expectation"]
    for key, text, where, expect in claims:
        lines += [f"{key:{key_width}s} {where:{where_width}s} {'PASS' if verdicts[key] else 'FAIL':7s}  {expect}",
                  f"    {text}"]
    return "\n".join(lines)
