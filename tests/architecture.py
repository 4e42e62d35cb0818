"""tools/architecture.py (the layer table and the measurements, not a package module) loaded as
`arch`, for tests/test_architecture.py and the cache's fingerprint tests."""
import importlib.util
import os
import sys

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools",
                     "architecture.py")
_spec = importlib.util.spec_from_file_location("tack_architecture", _PATH)
arch = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = arch  # dataclasses look their module up by name
_spec.loader.exec_module(arch)
