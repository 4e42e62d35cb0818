"""`python -m tack`: the version and the system report, as text and as JSON."""
import json
import os
import subprocess
import sys

import tack

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TACK_REPORT_PROBE="1")
    return subprocess.run([sys.executable, "-m", "tack", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def test_the_report_names_every_engine_and_the_settings():
    out = run()
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith(f"Tack {tack.__version__}\n")
    for section in ("system:", "cpu engine:", "simulator:", "cuda engine:", "julia engine:",
                    "cache:", "settings:"):
        assert f"\n{section}\n" in text, section
    assert "llvm: " in text and "triple: " in text
    assert "TACK_REPORT_PROBE: 1" in text  # the TACK_* variables in effect


def test_json_report():
    out = run("--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["tack"] == tack.__version__
    assert rep["cpu_engine"]["threads"] >= 1 and rep["cpu_engine"]["llvm"].count(".") == 2
    assert "native" in rep["engines"] and "sim" in rep["engines"]
    assert rep["cuda_engine"]["available"] in (True, False)
    if not rep["cuda_engine"]["available"]:
        assert rep["cuda_engine"]["why"]
    assert rep["settings"]["TACK_REPORT_PROBE"] == "1"


def test_version_and_usage_errors():
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"tack {tack.__version__}"
    bad = run("--no-such-option")
    assert bad.returncode == 2 and "usage: python -m tack" in bad.stderr
    assert "Traceback" not in bad.stderr
