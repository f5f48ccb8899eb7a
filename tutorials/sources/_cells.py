"""Cell constructors used by the notebook sources (see ``tutorials/build_notebooks.py``)."""
import textwrap

import nbformat


def md(text: str):
    """A markdown cell (the text is dedented and stripped)."""
    return nbformat.v4.new_markdown_cell(textwrap.dedent(text).strip("\n"))


def code(text: str):
    """A code cell (the text is dedented and stripped)."""
    return nbformat.v4.new_code_cell(textwrap.dedent(text).strip("\n"))
