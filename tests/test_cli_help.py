"""`marginkit --help` lists every subcommand, each on one line of an 80-column terminal."""
import re

import pytest

from marginkit.api.cli import _parser, main


def test_help_lists_every_subcommand_on_one_line(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    commands = list(next(a for a in _parser()._actions if a.dest == "command").choices)
    assert commands == ["list", "solve", "compare", "certify", "bench"]
    for name in commands:
        [i] = [i for i, line in enumerate(lines) if re.match(rf"^ {{4}}{name} +\S", line)]
        assert len(lines[i]) <= 80
        following = lines[i + 1]   # another command or the end of the list, never a wrapped continuation
        assert following == "" or re.match(rf"^ {{4}}({'|'.join(commands)}) ", following), following
