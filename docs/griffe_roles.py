"""A Griffe extension for the API reference (``mkdocs.yml``, mkdocstrings' ``extensions``).

marginkit's docstrings are prose in Markdown-compatible reST: ````code```` spans, Sphinx roles such as
``:func:`describe``` and ``:class:`~marginkit.core.result.Result```, ``text::`` before an indented literal block, and
numpydoc sections (``Parameters`` / ``Returns`` / ``Examples``, parsed by ``docstring_style: numpy``) in a few
functions. Markdown knows neither the roles nor ``::``: a role would show as ``:func:`` before its code span, and
``::`` as two colons. This extension rewrites each docstring before it is rendered, without touching the source:
a role becomes a code span of its target (``~`` keeps the last dotted component, as Sphinx does), and ``text::``
before a blank line becomes ``text:`` (a lone ``::`` line is dropped); the indented block after it is already a
Markdown code block. Code blocks and doctests are left alone.
"""
from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|obj|exc|const|ref):`(~?)([^`]+)`")
LITERAL = re.compile(r"(?m)^([^\n]*?)::[ \t]*$(?=\n[ \t]*\n)")


def _role(match: re.Match) -> str:
    tilde, target = match.groups()
    target = target.strip()
    explicit = re.fullmatch(r"(.*?)\s*<([^>]+)>", target)   # :func:`title <target>`
    if explicit:
        return f"`{explicit.group(1)}`"
    return f"`{target.rsplit('.', 1)[-1] if tilde else target}`"


def _literal(match: re.Match) -> str:
    text = match.group(1)
    return "" if not text.strip() else (text + ":" if not text.endswith(" ") else text.rstrip() + ":")


def plain(text: str) -> str:
    """``text`` with its roles as code spans and its ``::`` markers as colons."""
    return LITERAL.sub(_literal, ROLE.sub(_role, text))


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite every docstring the API reference renders (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
