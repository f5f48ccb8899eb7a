"""Regenerate the method table of README.md from the registry: ``python docs/update_readme.py``."""
import re
from pathlib import Path

from marginkit.reductions import method_table

readme = Path(__file__).resolve().parents[1] / "README.md"
text = readme.read_text()
new = re.sub(r"<!-- methods -->.*?<!-- /methods -->", lambda m: f"<!-- methods -->\n{method_table()}\n<!-- /methods -->",
             text, flags=re.S)
readme.write_text(new)
print("README method table", "updated" if new != text else "already current")
