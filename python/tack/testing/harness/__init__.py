"""The testing harness: correctness over a shape tier against a float64 reference, then timing,
then a stored record.

```python
record = tack.testing.test(add, reference=lambda x, y: x + y, signature="(n),(n)->(n)")
assert record.passed, record.summary()
```

`python -m tack.testing test file.py::add --reference file.py::ref --signature "(n),(n)->(n)"`
does the same from a shell. docs/testing.md is the guide.
"""
from .driver import test
from .records import Record, load_all, runs_dir
from .tiers import Case, Tier, cases

__all__ = ["Case", "Record", "Tier", "cases", "load_all", "runs_dir", "test"]
