"""`python -m tack.testing test|runs`: the testing harness from a shell (see docs/testing.md)."""
from .harness.cli import main

raise SystemExit(main())
