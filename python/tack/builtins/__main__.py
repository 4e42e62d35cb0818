"""`python -m tack.builtins > docs/builtins.md`: print the generated builtins page."""
from .docs import page_markdown

print(page_markdown(), end="")
