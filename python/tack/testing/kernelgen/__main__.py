"""`python -m tack.testing.kernelgen --seed 1 --count 100`: fuzz Tack against the oracle."""
from .fuzz import main

raise SystemExit(main())
