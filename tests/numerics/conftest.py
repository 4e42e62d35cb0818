"""The Julia 1.5.3 tier's fixtures (tests/julia/conftest.py), for the differential tests here."""
from tests.julia.conftest import (  # noqa: F401 - pytest finds fixtures by name in a conftest
    _julia153_session,
    julia153_engine,
    julia153_process,
)
